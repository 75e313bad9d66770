//! The YAML parser's resource budget (serde-saphyr's defaults: 250,000
//! nodes, 1,000,000 events, depth 64, …) in words: which limit a file went
//! over, and what to do about it.

/// A breached parser budget (serde-saphyr says `budget breached: Nodes {
/// nodes: 250001 }`) as a sentence with the limit, and a hint that fits it
/// (issue 25). `None` for any other error.
pub(crate) fn budget_message(err: &serde_saphyr::Error) -> Option<(String, &'static str)> {
    use serde_saphyr::budget::BudgetBreach as B;
    const SPLIT: &str = "split the file: move a suite's cases to a JSONL file listed under `include:`, or spread its checkpoints over several suites";
    const ALIASES: &str = "write the repeated values out, or use fewer anchors and aliases: the limits stop alias bombs";
    let mut err = err;
    while let serde_saphyr::Error::WithSnippet { error, .. } = err {
        err = error;
    }
    let serde_saphyr::Error::Budget { breach, .. } = err else {
        return None;
    };
    let limits = serde_saphyr::Budget::default();
    let (what, limit, hint) = match breach {
        B::Nodes { .. } => (
            "YAML nodes (every mapping, list and scalar counts)",
            limits.max_nodes,
            SPLIT,
        ),
        B::Events { .. } => ("YAML parser events", limits.max_events, SPLIT),
        B::ScalarBytes { .. } => (
            "bytes of text in its values",
            limits.max_total_scalar_bytes,
            SPLIT,
        ),
        B::Depth { .. } => (
            "levels of nested mappings and lists",
            limits.max_depth,
            "flatten the nesting",
        ),
        B::Documents { .. } => (
            "YAML documents",
            limits.max_documents,
            "a file holds one YAML document: remove the extra `---` separators",
        ),
        B::Aliases { .. } => ("aliases (`*name`)", limits.max_aliases, ALIASES),
        B::Anchors { .. } => ("anchors (`&name`)", limits.max_anchors, ALIASES),
        B::MergeKeys { .. } => ("merge keys (`<<`)", limits.max_merge_keys, ALIASES),
        other => {
            return Some((
                format!("the file is beyond a limit of the YAML parser ({other:?})"),
                "split the file, or simplify it (fewer anchors, aliases and nesting)",
            ));
        }
    };
    Some((
        format!(
            "the file has more than {limit} {what}, the most the gate reads from one YAML file"
        ),
        hint,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nodes_breach_reads_as_a_sentence() {
        let yaml = "- 1\n".repeat(300_000);
        let err = serde_saphyr::from_str::<Vec<u32>>(&yaml).unwrap_err();
        let (message, hint) = budget_message(&err).unwrap();
        assert!(
            message.starts_with("the file has more than 250000 YAML nodes"),
            "{message}"
        );
        assert!(hint.starts_with("split the file"), "{hint}");
        let other = serde_saphyr::from_str::<Vec<u32>>("[1, x]").unwrap_err();
        assert!(budget_message(&other).is_none());
    }
}
