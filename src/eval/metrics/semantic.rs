//! Semantic task success: the judge decides whether the final answer
//! conveys what the case's `expected_output.semantic` reference says. The
//! judge runs before evaluation; this turns its answer into the matcher's
//! outcome next to the deterministic matchers of [`super::task`]. No
//! answer from the judge (none configured, an error, the budget, the
//! cache) leaves success undecided with the reason, never a success.

/// The judge's answer for a case's semantic matcher.
#[derive(Debug, Clone, PartialEq)]
pub enum SemanticJudgment {
    Decided {
        equivalent: bool,
        notes: String,
        /// `judge:<provider>/<model>`.
        by: String,
    },
    /// No answer, and why.
    NotAvailable(String),
}

/// The semantic matcher's outcome: `Some(success)` or undecided, and the detail.
pub(crate) fn semantic_outcome(judgment: Option<&SemanticJudgment>) -> (Option<bool>, String) {
    match judgment {
        None => (
            None,
            "semantic match needs a judge: no judge configured".into(),
        ),
        Some(SemanticJudgment::NotAvailable(why)) => {
            (None, format!("semantic match undecided: {why}"))
        }
        Some(SemanticJudgment::Decided {
            equivalent,
            notes,
            by,
        }) => (
            Some(*equivalent),
            format!(
                "{} ({by}){}",
                if *equivalent {
                    "semantically equivalent to the reference"
                } else {
                    "not semantically equivalent to the reference"
                },
                if notes.is_empty() {
                    String::new()
                } else {
                    format!(": {notes}")
                }
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::metrics::task::evaluate_task_with;
    use crate::spec::model::ExpectedOutput;

    fn expect(yaml: &str) -> ExpectedOutput {
        serde_saphyr::from_str(yaml).unwrap()
    }

    #[test]
    fn the_judge_decides_semantic_and_the_other_matchers_still_count() {
        let decided = SemanticJudgment::Decided {
            equivalent: true,
            notes: "same balance".into(),
            by: "judge:openai/m".into(),
        };
        let r = evaluate_task_with(
            &expect("{semantic: 'balance is $5'}"),
            Some("You owe five dollars"),
            Some(&decided),
        );
        assert_eq!((r.matcher.as_str(), r.success), ("semantic", Some(true)));
        assert!(
            r.detail.contains("(judge:openai/m): same balance"),
            "{}",
            r.detail
        );
        // A deterministic matcher that fails still fails the task.
        let r = evaluate_task_with(
            &expect("{semantic: x, contains: refund}"),
            Some("no"),
            Some(&decided),
        );
        assert_eq!(r.success, Some(false));
        // A judge error is undecided, never a success.
        let err = SemanticJudgment::NotAvailable("judge_error: timeout".into());
        let r = evaluate_task_with(&expect("{semantic: x}"), Some("y"), Some(&err));
        assert_eq!(r.success, None);
        assert!(r.detail.contains("judge_error: timeout"));
    }
}
