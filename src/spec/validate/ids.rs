//! Case ids become file and directory names (`traces/<id>.json`,
//! `work/<id>/`) and appear in logs and comments: an id that cannot be one
//! is a lint error, not a run that aborts later.

/// Longest case id in bytes, so `<id>.json` fits a file name (255 bytes).
pub(crate) const MAX_CASE_ID_BYTES: usize = 250;

/// What is wrong with case id `id` (message, hint), if anything.
pub(crate) fn case_id_problem(id: &str) -> Option<(String, &'static str)> {
    const HINT: &str =
        "use letters, digits, `-`, `_` and `.`: the id names `traces/<id>.json` and `work/<id>/`";
    let shown = crate::output::escape::terminal(id);
    if id.is_empty() {
        return Some(("a case id is empty".to_owned(), HINT));
    }
    if id.len() > MAX_CASE_ID_BYTES {
        return Some((
            format!(
                "case id `{}…` is {} bytes long (at most {MAX_CASE_ID_BYTES})",
                crate::output::truncate_chars(&shown, 40),
                id.len()
            ),
            HINT,
        ));
    }
    if id.contains(['/', '\\'])
        || id.starts_with('.')
        || id.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Some((format!("case id `{shown}` cannot name a trace file"), HINT));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_must_be_file_names() {
        assert_eq!(case_id_problem("cs-001.v2"), None);
        assert_eq!(case_id_problem(&"a".repeat(MAX_CASE_ID_BYTES)), None);
        for bad in [
            "",
            "a/b",
            "a\\b",
            ".x",
            "..",
            "a b",
            "a\0b",
            "a\x1b[31m",
            "a\nb",
        ] {
            assert!(case_id_problem(bad).is_some(), "{bad:?}");
        }
        let (message, _) = case_id_problem(&"é".repeat(200)).unwrap();
        assert!(message.contains("400 bytes long"), "{message}");
    }
}
