//! Issue 25, item 7: a glob of 400,000 `a`s (or 100,000 emoji) in
//! `sequence.never.tool` made `lint` and `run` exit 101 inside `globset`
//! ("regex compilation shouldn't fail"). Globs and regexes from a suite are
//! capped and compiled by the gate; a failure is a located spec error.

use super::expect;
use crate::common::{bin, copy_dir, repo};

/// The support-bot example with P2-06's `never.tool` set to `glob` and
/// P2-03's `count.of` given `content_matches: regex` when set.
fn suite_with(glob: &str, regex: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suites/support-bot");
    copy_dir(&repo().join("suites/support-bot"), &suite);
    let path = suite.join("suite.yaml");
    let mut yaml = std::fs::read_to_string(&path).unwrap();
    let never = "sequence: {never: {tool: issue_refund, agent: billing_specialist}}";
    assert!(yaml.contains(never));
    yaml = yaml.replace(
        never,
        &format!("sequence: {{never: {{tool: {glob:?}, agent: billing_specialist}}}}"),
    );
    if let Some(regex) = regex {
        let count = "sequence: {count: {of: {tool: lookup_account}, max: 2}}";
        assert!(yaml.contains(count));
        yaml = yaml.replace(
            count,
            &format!(
                "sequence: {{count: {{of: {{kind: llm, content_matches: {regex:?}}}, max: 2}}}}"
            ),
        );
    }
    std::fs::write(&path, yaml).unwrap();
    dir
}

#[test]
fn a_400000_character_glob_is_a_lint_error_not_a_panic() {
    for glob in ["a".repeat(400_000), "😀".repeat(100_000)] {
        let dir = suite_with(&glob, None);
        let out = bin().current_dir(dir.path()).arg("lint").output().unwrap();
        let (_, stderr) = expect(&out, 78);
        assert!(
            stderr.contains("in `P2-06` is not a valid glob: it is")
                && stderr.contains("characters long, over the limit of 1000"),
            "{stderr}"
        );
        assert!(stderr.contains("suite.yaml:192:"), "located: {stderr}");
        assert!(stderr.contains("help: shorten the pattern"), "{stderr}");
        assert!(stderr.len() < 20_000, "the pattern is not printed whole");

        let out = bin()
            .current_dir(dir.path())
            .args(["run", "--suite", "support-bot", "--deterministic"])
            .output()
            .unwrap();
        expect(&out, 78);
    }
}

#[test]
fn long_and_oversized_regexes_are_lint_errors() {
    // Over the length cap.
    let dir = suite_with("issue_refund", Some(&"a".repeat(20_000)));
    let out = bin().current_dir(dir.path()).arg("lint").output().unwrap();
    let (_, stderr) = expect(&out, 78);
    assert!(
        stderr.contains("`content_matches` in `P2-03` is not a valid regex: it is 20000 characters long, over the limit of 10000"),
        "{stderr}"
    );
    // Under the cap but too big to compile: the `regex` crate's own error.
    let dir = suite_with("issue_refund", Some(&"[a-z]{0,1000}".repeat(700)));
    let out = bin().current_dir(dir.path()).arg("lint").output().unwrap();
    let (_, stderr) = expect(&out, 78);
    assert!(stderr.contains("is not a valid regex"), "{stderr}");
    assert!(stderr.contains("size limit"), "{stderr}");
}
