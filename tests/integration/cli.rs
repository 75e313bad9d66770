//! End-to-end tests of the real binary: lint, bad input, exit codes.

use predicates::prelude::*;

use crate::common::{bin, copy_dir, fixture, outputs, repo};

#[test]
fn lint_reports_every_error_class_with_file_line_col_and_hint() {
    let out = bin()
        .args(["lint", "--suite"])
        .arg(fixture("suites/lint-bad"))
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(78), "stderr:\n{stderr}");
    let expected = [
        (
            "suite.yaml:8:11",
            "the JSON Schema of tool `issue_refund` is invalid",
        ),
        ("suite.yaml:13:12", "the workflow has a cycle"),
        (
            "suite.yaml:18:15",
            "constraint `ENV-01` affects unknown checkpoint `P9-99`",
        ),
        (
            "suite.yaml:26:9",
            "duplicate checkpoint id `P1-01` (first defined at line 20)",
        ),
        (
            "suite.yaml:32:9",
            "checkpoint `P1-02` has no `evidence_sources`",
        ),
        (
            "suite.yaml:32:9",
            "tier-1 checkpoint `P1-02` has no `assert`",
        ),
        (
            "suite.yaml:36:9",
            "tier-2 checkpoint `P2-01` has no `sequence`",
        ),
        (
            // At the matcher that names it, not at the checkpoint's id.
            "suite.yaml:46:23",
            "`P2-02` refers to tool `wire_transfer`, which is not in the `tools:` catalog",
        ),
        ("suite.yaml:50:38", "case `c1` expects tool `send_fax`"),
        (
            "more.jsonl:2:1",
            "duplicate case id `c1` (first defined at suite.yaml:48)",
        ),
    ];
    for (location, message) in expected {
        let found = stderr.lines().any(|l| l.contains(message));
        assert!(found, "missing `{message}` in:\n{stderr}");
        assert!(
            stderr.contains(location),
            "missing location `{location}` in:\n{stderr}"
        );
    }
    // Every error carries a hint.
    assert!(
        stderr.matches("help:").count() >= expected.len(),
        "{stderr}"
    );
    assert!(
        stdout.contains("lint: 1 suite checked, 10 errors, 3 warnings"),
        "{stdout}"
    );
    // The second warning: a suite this small cannot confirm a regression (issue 23).
    assert!(
        stderr.contains("no gating metric can reach α = 0.05"),
        "{stderr}"
    );
    // The third: the workflow names `lookup_account` but not `issue_refund`
    // and does not say whether it is exhaustive (issue 22).
    assert!(
        stderr.contains("the workflow names 1 of the 2 catalog tools and does not say whether it is exhaustive (not named: `issue_refund`)"),
        "{stderr}"
    );
}

#[test]
fn parse_errors_point_at_the_key_and_exit_78() {
    let cases = [
        (
            "unknown-key.yaml",
            "unknown field `asert`",
            "unknown-key.yaml:9:5",
        ),
        ("wrong-type.yaml", "invalid", "wrong-type.yaml:5:11"),
        ("malformed.yaml", "", "malformed.yaml:"),
        (
            "bad-include.yaml",
            "cannot read included file `missing.jsonl`",
            "bad-include.yaml:4:14",
        ),
    ];
    for (file, message, location) in cases {
        let out = bin()
            .args(["lint", "--suite"])
            .arg(fixture(&format!("suites/parse-errors/{file}")))
            .output()
            .unwrap();
        let (_, stderr) = outputs(&out);
        assert_eq!(out.status.code(), Some(78), "{file}: {stderr}");
        assert!(stderr.contains(message), "{file}: {stderr}");
        assert!(
            stderr.contains(location),
            "{file}: expected {location} in {stderr}"
        );
        assert!(stderr.contains("help:"), "{file}: {stderr}");
        assert!(!stderr.contains("panicked"), "{file}: {stderr}");
    }
}

#[test]
fn missing_suite_is_a_config_error_with_the_available_names() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("suites/stable"), &dir.path().join("suites/stable"));
    bin()
        .current_dir(dir.path())
        .args(["run", "--suite", "nope"])
        .assert()
        .code(78)
        .stderr(predicate::str::contains(
            "suite file `suites/nope/suite.yaml` not found",
        ))
        .stderr(predicate::str::contains("suites under `suites`: stable"));
}

#[test]
fn lint_checks_id_stability_against_the_baseline() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("suites/stable"), &dir.path().join("suites/stable"));
    bin()
        .current_dir(dir.path())
        .args(["baseline", "update", "--name", "main", "--deterministic"])
        .assert()
        .success();
    bin()
        .current_dir(dir.path())
        .arg("lint")
        .assert()
        .success()
        .stdout(predicate::str::contains("0 errors"));

    let suite = dir.path().join("suites/stable/suite.yaml");
    let text = std::fs::read_to_string(&suite).unwrap();
    let edited = text
        .replace("Look up the account before answering", "Look up the account first")
        .replace("  - id: P2-01\n    tier: 2\n    instruction: Never call an unknown tool\n    severity: critical\n    evidence_sources: [trace]\n    sequence: {never: {tool: \"zz_*\"}}\n", "");
    assert_ne!(edited, text);
    std::fs::write(&suite, edited).unwrap();
    let out = bin().current_dir(dir.path()).arg("lint").output().unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(78), "{stderr}");
    assert!(stderr.contains("checkpoint `P1-01` changed its instruction since baseline `main` (was: \"Look up the account before answering\")"), "{stderr}");
    assert!(stderr.contains("suite.yaml:9:9"), "{stderr}");
    assert!(
        stderr.contains("checkpoint `P2-01` of baseline `main` was removed from the suite"),
        "{stderr}"
    );
    assert!(stdout.contains("1 error, 2 warnings"), "{stdout}");
    assert!(stderr.contains("no gating metric can reach α"), "{stderr}");
}

#[test]
fn usage_errors_exit_64_and_help_exits_0() {
    bin().arg("frobnicate").assert().code(64);
    bin()
        .args(["run", "--shard", "5/4"])
        .assert()
        .code(64)
        .stderr(predicate::str::contains("out of range"));
    bin()
        .arg("--help")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Exit codes"));
}

#[test]
fn trace_shows_the_dag_with_root_causes_in_every_view() {
    let regressed = crate::common::repo().join("suites/support-bot/traces-regressed/sb-003.json");
    let out = bin()
        .current_dir(crate::common::repo())
        .arg("trace")
        .arg(&regressed)
        .args(["--suite", "support-bot"])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("(otlp)") && stdout.find("tree:") < stdout.find("dag: dag"),
        "the span view comes first:\n{stdout}"
    );
    let root = stdout
        .lines()
        .find(|l| l.contains("ROOT CAUSE"))
        .unwrap_or_default();
    // The refund was issued without the `approval_id` its schema requires.
    assert!(
        root.contains("PARAMGEN")
            && root.contains("issue_refund")
            && root.contains("missing_required_parameter"),
        "{stdout}"
    );

    let out = bin()
        .current_dir(crate::common::repo())
        .arg("trace")
        .arg(&regressed)
        .args(["--suite", "support-bot", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let nodes = v["dag"]["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 11);
    assert_eq!(v["dag"]["edges"].as_array().unwrap().len(), 13);
    assert_eq!(v["trace"]["format"], "otlp");

    let out = bin()
        .arg("trace")
        .arg(&regressed)
        .args(["--format", "mermaid"])
        .output()
        .unwrap();
    let mermaid = String::from_utf8(out.stdout).unwrap();
    assert!(mermaid.starts_with("flowchart TD\n"), "{mermaid}");
    assert!(mermaid.contains("s1 --> s2"), "{mermaid}");
}

#[test]
fn run_reports_are_byte_identical_across_reruns() {
    let dir = tempfile::tempdir().unwrap();
    let mut reports = Vec::new();
    for i in 0..2 {
        let out_dir = dir.path().join(format!("r{i}"));
        bin()
            .current_dir(crate::common::repo())
            .args([
                "run",
                "--suite",
                "code-review",
                "--suite",
                "airline-tau",
                "--deterministic",
                "--format",
                "json",
                "--out-dir",
            ])
            .arg(&out_dir)
            .assert()
            .success();
        reports.push((
            std::fs::read(out_dir.join("code-review.json")).unwrap(),
            std::fs::read(out_dir.join("airline-tau.json")).unwrap(),
        ));
    }
    assert_eq!(reports[0], reports[1]);
    let report: serde_json::Value = serde_json::from_slice(&reports[0].0).unwrap();
    assert!(report.get("evaluated_at").is_none() && report.get("wall_time_ms").is_none());
    for key in [
        "schema_version",
        "tool_version",
        "suite",
        "spec_version",
        "spec_hash",
        "tier",
        "config_tags",
        "judge",
        "cases",
        "aggregate",
    ] {
        assert!(report.get(key).is_some(), "missing `{key}`");
    }
    let case = &report["cases"][0];
    for key in [
        "id",
        "tags",
        "status",
        "scores",
        "summary",
        "checkpoints",
        "steps",
        "dag",
        "tool_use",
        "cost",
    ] {
        assert!(case.get(key).is_some(), "case is missing `{key}`");
    }
}

#[test]
fn no_subcommand_prints_help_on_stderr_and_exits_64() {
    let out = bin().output().unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(
        out.status.code(),
        Some(64),
        "a CI step must not read it as a pass"
    );
    assert_eq!(stdout, "");
    assert!(stderr.contains("Usage: agenteval-gate"), "{stderr}");
    assert!(stderr.contains("compare"), "{stderr}");
    // `--help` itself still succeeds on stdout.
    let out = bin().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(outputs(&out).0.contains("Usage: agenteval-gate"));
}

#[test]
fn a_mistyped_fail_on_never_suggests_switching_the_gate_off() {
    let out = bin()
        .args(["compare", "--fail-on", "severe"])
        .output()
        .unwrap();
    let (_, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(64));
    assert!(
        stderr.contains("invalid value 'severe' for '--fail-on"),
        "{stderr}"
    );
    assert!(!stderr.contains("similar value"), "{stderr}");
}

#[test]
fn completions_and_man_page_come_from_the_real_flags() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = bin().args(["completions", shell]).output().unwrap();
        let (stdout, stderr) = outputs(&out);
        assert_eq!(out.status.code(), Some(0), "{shell}: {stderr}");
        assert!(stdout.contains("agenteval-gate"), "{shell}");
        assert!(
            stdout.contains("allow-missing-baseline"),
            "{shell}: every flag"
        );
    }
    let out = bin().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(64));

    let out = bin().arg("man").output().unwrap();
    let (page, _) = outputs(&out);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        page.starts_with(".ie \\n(.g .ds Aq"),
        "{}",
        &page[..80.min(page.len())]
    );
    assert!(page.contains(".TH agenteval-gate 1"), "roff title");
    assert!(page.contains("compare"));
}

#[test]
fn colour_follows_no_color_clicolor_and_clicolor_force() {
    // A warning-producing run: `lint` on the bad suite prints coloured
    // diagnostics when colour is on.
    let run = |env: &[(&str, &str)], args: &[&str]| {
        let mut cmd = bin();
        cmd.env_remove("NO_COLOR")
            .env_remove("CLICOLOR")
            .env_remove("CLICOLOR_FORCE")
            .args(args)
            .args(["lint", "--suite"])
            .arg(fixture("suites/lint-bad"));
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(78));
        outputs(&out).1.contains('\u{1b}')
    };
    assert!(!run(&[], &[]), "stderr is not a terminal");
    assert!(run(&[("CLICOLOR_FORCE", "1")], &[]));
    assert!(
        !run(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], &[]),
        "NO_COLOR wins"
    );
    assert!(!run(&[("CLICOLOR", "0")], &[]));
    assert!(
        run(&[("NO_COLOR", "1")], &["--color", "always"]),
        "the flag wins"
    );
    assert!(!run(&[("CLICOLOR_FORCE", "1")], &["--color", "never"]));
}

#[test]
fn baseline_show_takes_format_like_every_command() {
    let json = bin()
        .args(["baseline", "show", "--name", "main", "--format", "json"])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&json);
    assert_eq!(json.status.code(), Some(0), "{stderr}");
    let parsed: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(parsed.is_array(), "{parsed}");
    let alias = bin()
        .args(["baseline", "show", "--name", "main", "--json"])
        .output()
        .unwrap();
    assert_eq!(outputs(&alias).0, stdout, "--json is the same");
    let help = bin().args(["baseline", "show", "--help"]).output().unwrap();
    let help = outputs(&help).0;
    assert!(help.contains("--format"));
    assert!(!help.contains("--json"), "the alias is hidden");
}

#[test]
fn man_writes_a_page_per_subcommand_that_the_top_page_refers_to() {
    // Issue 23 item 9: the top page names `agenteval-gate-run(1)` and the others; each
    // must exist.
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("man1");
    let out = bin()
        .args(["man", "--out-dir"])
        .arg(&out_dir)
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let top = std::fs::read_to_string(out_dir.join("agenteval-gate.1")).unwrap();
    for sub in [
        "run",
        "compare",
        "lint",
        "trace",
        "report",
        "comment",
        "merge",
        "calibrate",
    ] {
        let page = format!("agenteval-gate-{sub}.1");
        assert!(out_dir.join(&page).is_file(), "{page}");
        assert!(stdout.contains(&page), "listed: {stdout}");
        assert!(
            top.contains(&format!("agenteval\\-gate\\-{sub}")),
            "top page names {sub}"
        );
    }
    for nested in [
        "baseline-update",
        "baseline-show",
        "config-show",
        "rubric-verify",
    ] {
        assert!(
            out_dir.join(format!("agenteval-gate-{nested}.1")).is_file(),
            "{nested}"
        );
    }
    // Exit codes 130 and 143 are documented in --help.
    let help = bin().arg("--help").output().unwrap();
    let (help, _) = outputs(&help);
    assert!(
        help.contains("130 interrupted (SIGINT)") && help.contains("143 terminated (SIGTERM)"),
        "{help}"
    );
}

#[test]
fn baseline_list_as_json_has_one_object_per_row_of_the_table() {
    // Issue 23 item 9: `--format json` where a script needs it.
    let out = bin()
        .current_dir(repo())
        .args(["baseline", "list", "--format", "json"])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&stdout).unwrap();
    let table = bin()
        .current_dir(repo())
        .args(["baseline", "list"])
        .output()
        .unwrap();
    let (table, _) = outputs(&table);
    for row in &rows {
        let (name, suite) = (
            row["baseline"].as_str().unwrap(),
            row["suite"].as_str().unwrap(),
        );
        let cases = row["cases"].as_u64().unwrap();
        assert!(
            table.lines().any(|l| l.contains(name)
                && l.contains(suite)
                && l.contains(&format!(" {cases} "))),
            "{name}/{suite} with {cases} cases in\n{table}"
        );
    }
    let listed: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["baseline"].as_str().unwrap(),
                r["suite"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(listed.contains(&("main", "support-bot")), "{listed:?}");
    assert!(
        listed.contains(&("stand-in-judge", "support-bot")),
        "{listed:?}"
    );
    assert_eq!(
        table
            .lines()
            .filter(|l| l.contains("main") || l.contains("stand-in-judge"))
            .count(),
        rows.len(),
        "{table}"
    );
}

/// Issue 23 item 9: `--format json` on `lint`, `config show` and `merge` prints one JSON
/// document on stdout (and `merge --format json` refuses `--out -`, where the report goes).
#[test]
fn summaries_as_json_parse_and_say_what_the_text_says() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("suites/stable"), &dir.path().join("suites/stable"));
    std::fs::remove_file(dir.path().join("suites/stable/traces/s2.json")).unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["lint", "--format", "json"])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(78), "{stderr}");
    assert_eq!(stderr, "", "no diagnostics on stderr in JSON mode");
    let lint: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (lint["suites"].as_u64(), lint["errors"].as_u64()),
        (Some(1), Some(1))
    );
    let missing = lint["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["level"] == "error")
        .unwrap();
    assert_eq!(missing["file"], "suites/stable/traces/");
    assert!(missing["line"].is_null());
    assert!(
        missing["message"]
            .as_str()
            .unwrap()
            .contains("case `s2` has no trace here")
    );

    let out = bin()
        .current_dir(dir.path())
        .args(["config", "show", "--format", "json"])
        .output()
        .unwrap();
    let config: serde_json::Value = serde_json::from_str(&outputs(&out).0).unwrap();
    assert_eq!(
        config["settings"][0],
        serde_json::json!({"key": "suites_dir", "value": "suites", "source": "default"})
    );

    let out = bin()
        .current_dir(dir.path())
        .args(["merge", "a.json", "--out", "-", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
    assert!(
        outputs(&out)
            .1
            .contains("`--format json` prints a summary on stdout")
    );
}
