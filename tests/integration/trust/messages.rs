//! Issue 25, item 9: `--format junit` with no case selected printed nothing
//! (an empty file a test reporter cannot parse); a suite over the YAML
//! parser's node budget said `budget breached: Nodes { nodes: 250001 }`
//! with the hint "fix the YAML syntax".

use super::expect;
use crate::common::{bin, repo};

#[test]
fn junit_with_no_case_selected_is_a_valid_document_that_says_why() {
    for (command, extra, code) in [
        (&["compare", "--baseline", "main"][..], None, 4),
        (
            &["compare", "--baseline", "main"][..],
            Some("--allow-empty"),
            0,
        ),
        (&["run"][..], None, 4),
        (&["run"][..], Some("--allow-empty"), 0),
    ] {
        let out = bin()
            .current_dir(repo())
            .args(command)
            .args([
                "--suite",
                "support-bot",
                "--deterministic",
                "--format",
                "junit",
            ])
            .args(["--shard", "1/1000"])
            .args(extra)
            .output()
            .unwrap();
        let (stdout, stderr) = expect(&out, code);
        assert!(
            stdout.starts_with("<?xml"),
            "{command:?} {extra:?}: {stdout:?}"
        );
        assert!(stdout.trim_end().ends_with("</testsuites>"), "{stdout}");
        assert!(
            stdout.contains("<testcase name=\"no cases selected\""),
            "{stdout}"
        );
        if code == 4 {
            assert!(stdout.contains("errors=\"1\"") && stdout.contains("nothing-evaluated"));
            assert!(stderr.contains("no cases selected"), "{stderr}");
        } else {
            assert!(
                stdout.contains("<skipped message=\"no cases selected"),
                "{stdout}"
            );
        }
    }
    // Other formats print nothing; the reason is on stderr.
    let out = bin()
        .current_dir(repo())
        .args(["compare", "--baseline", "main", "--suite", "support-bot"])
        .args(["--deterministic", "--format", "json", "--shard", "1/1000"])
        .output()
        .unwrap();
    let (stdout, _) = expect(&out, 4);
    assert!(stdout.is_empty(), "{stdout}");
}

#[test]
fn a_suite_over_the_yaml_node_budget_gets_a_human_message() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suites/big");
    std::fs::create_dir_all(&suite).unwrap();
    let mut yaml = String::from("suite: big\ncheckpoints:\n");
    for i in 0..100_000 {
        yaml.push_str(&format!(
            "  - {{id: C{i}, tier: 1, instruction: x, severity: low, evidence_sources: [state], assert: {{path: /a, exists: true}}}}\n"
        ));
    }
    std::fs::write(suite.join("suite.yaml"), yaml).unwrap();
    let out = bin().current_dir(dir.path()).arg("lint").output().unwrap();
    let (_, stderr) = expect(&out, 78);
    assert!(
        stderr.contains("the file has more than 250000 YAML nodes (every mapping, list and scalar counts), the most the gate reads from one YAML file"),
        "{stderr}"
    );
    assert!(stderr.contains("suite.yaml:"), "located: {stderr}");
    assert!(stderr.contains("help: split the file"), "{stderr}");
    assert!(
        !stderr.contains("budget breached") && !stderr.contains("fix the YAML syntax"),
        "{stderr}"
    );
}
