//! Issue 23, item 5: `lint` reads the traces and evidence a suite points at. A case without
//! its trace, a trace that does not parse, a file named after no case and evidence that is
//! not JSON are errors with the file, the line where there is one, and a hint; the bundled
//! suites lint clean.

use crate::common::{bin, copy_dir, outputs, repo};

#[test]
fn missing_orphan_and_broken_recordings_are_lint_errors() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let suite = root.join("suites/support-bot");
    copy_dir(&repo().join("suites/support-bot"), &suite);
    let clean = bin()
        .current_dir(root)
        .args(["lint", "--suite", "support-bot"])
        .output()
        .unwrap();
    assert_eq!(clean.status.code(), Some(0), "{:?}", outputs(&clean));

    std::fs::remove_file(suite.join("traces/sb-005.json")).unwrap();
    std::fs::rename(
        suite.join("traces/sb-006.json"),
        suite.join("traces/sb-0066.json"),
    )
    .unwrap();
    std::fs::write(suite.join("traces/sb-003.json"), "{\"resourceSpans\": [\n").unwrap();
    std::fs::write(suite.join("evidence/sb-002.json"), "{\"refund\": }").unwrap();
    // A trial of the flaky recording without one of its cases.
    std::fs::remove_file(suite.join("traces-flaky/trial-1/sb-007.json")).unwrap();
    let text = std::fs::read_to_string(suite.join("suite.yaml")).unwrap();
    let flaky = text.replacen("traces: traces/", "traces: traces-flaky/", 1);
    assert_ne!(flaky, text);

    let out = bin()
        .current_dir(root)
        .args(["lint", "--suite", "support-bot"])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(78), "{stdout}{stderr}");
    for expected in [
        "suites/support-bot/traces/: case `sb-005` has no trace here (looked for `sb-005.json`, `.jsonl` and `.traj`)",
        "suites/support-bot/traces/: case `sb-006` has no trace here",
        "suites/support-bot/traces/sb-0066.json: no case has the id `sb-0066`",
        "did you mean `sb-006`? a trace file is named after its case's id",
        "[suites/support-bot/traces/sb-003.json:2:1]",
        "the file looks truncated",
        "[suites/support-bot/evidence/sb-002.json:1:12]",
        "evidence file is not valid JSON",
    ] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
    assert!(
        stdout.contains("lint: 1 suite checked, 5 errors, 0 warnings"),
        "{stdout}"
    );

    // The trials layout: each `trial-<i>/` is checked.
    std::fs::write(suite.join("suite.yaml"), flaky).unwrap();
    let out = bin()
        .current_dir(root)
        .args(["lint", "--suite", "support-bot"])
        .output()
        .unwrap();
    let (_, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(78), "{stderr}");
    assert!(
        stderr.contains("suites/support-bot/traces-flaky/trial-1: case `sb-007` has no trace here"),
        "{stderr}"
    );
    assert!(!stderr.contains("trial-0: case"), "{stderr}");
}
