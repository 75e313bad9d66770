//! Issue 25 item 1: in a pull request the rules come from the PR's base
//! commit. Each of nine one-line edits that turned the regressed support-bot
//! compare from exit 2 into exit 0 still exits 2 in a `pull_request` event,
//! and the comment's first screen lists the edit as a change to the gate.
//! Tested through the binary in a real git repository; every edit is first
//! shown to pass when the PR's own rules are used (`--rules-ref worktree`),
//! so the test would fail if the edit did not matter.

use std::path::Path;

use super::expect;
use crate::common::{REGRESSED_INPUTS, copy_dir, git, repo};

/// The binary as `common::bin` runs it, but reading `agenteval.yaml` (the
/// config is one of the rules under test).
fn bin() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("agenteval-gate").unwrap();
    for (k, _) in std::env::vars() {
        if k.starts_with("AGENTEVAL_") || k.starts_with("GITHUB_") || k == "NO_COLOR" || k == "CI" {
            cmd.env_remove(k);
        }
    }
    cmd.env("NO_COLOR", "1");
    cmd
}

const SUITE: &str = "suites/support-bot/suite.yaml";

/// A repository whose `main` has the support-bot suite and its baseline, and a
/// PR branch that applies `edit`; returns the base sha.
fn repository(root: &Path, edit: impl Fn(&Path)) -> String {
    copy_dir(
        &repo().join("suites/support-bot"),
        &root.join("suites/support-bot"),
    );
    std::fs::create_dir_all(root.join("baselines/main")).unwrap();
    for f in ["support-bot.json", "support-bot.history.jsonl"] {
        std::fs::copy(
            repo().join("baselines/main").join(f),
            root.join("baselines/main").join(f),
        )
        .unwrap();
    }
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "base"]);
    let base = git(root, &["rev-parse", "HEAD"]);
    git(root, &["checkout", "-q", "-b", "pr"]);
    edit(root);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "the pull request"]);
    base
}

fn replace(root: &Path, rel: &str, pairs: &[(&str, &str)]) {
    let path = root.join(rel);
    let mut text = std::fs::read_to_string(&path).unwrap();
    for (from, to) in pairs {
        assert!(text.contains(from), "{rel} has no {from:?}");
        text = text.replacen(from, to, 1);
    }
    std::fs::write(path, text).unwrap();
}

fn compare(root: &Path, base: &str, extra: &[&str]) -> std::process::Output {
    let event = root.join("event.json");
    std::fs::write(
        &event,
        format!(r#"{{"pull_request": {{"number": 5, "base": {{"sha": "{base}"}}}}}}"#),
    )
    .unwrap();
    bin()
        .current_dir(root)
        .args(["compare", "--baseline", "main"])
        .args(REGRESSED_INPUTS)
        .args(["--deterministic", "--format", "markdown"])
        .args(extra)
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &event)
        .output()
        .unwrap()
}

const P2_02: &str = "  - id: P2-02
    tier: 2
    instruction: Never issue a refund without a supervisor approval first
    severity: critical
    evidence_sources: [trace]
    sequence: {before: {tool: request_approval}, then: {tool: issue_refund}}
";
const COMPLIANCE: &str = "compliance_percent: {severity: critical, min_effect: 2.0}";
const COMPLIANCE_LOW: &str = "compliance_percent: {severity: low, min_effect: 2.0}";
const P2_02_GATE: &str = "    \"checkpoint:P2-02\": {severity: critical}\n";

/// (name, edit, a line the comment's changes section must show).
type Edit = (&'static str, fn(&Path), &'static str);

const EDITS: [Edit; 9] = [
    (
        "suite fail_on: never",
        |r| replace(r, SUITE, &[("  fail_on: critical", "  fail_on: never")]),
        "- **weakened** suite `support-bot` `gates.fail_on`: `critical` → `never`",
    ),
    (
        "agenteval.yaml fail_on: never",
        |r| std::fs::write(r.join("agenteval.yaml"), "fail_on: never\n").unwrap(),
        "- **weakened** `agenteval.yaml` `fail_on`: — → `never`",
    ),
    (
        "min_cases: 1000",
        |r| replace(r, SUITE, &[("  min_cases: 5", "  min_cases: 1000")]),
        "- **weakened** suite `support-bot` `gates.min_cases`: `5` → `1000`",
    ),
    (
        "alpha: 0.0001",
        |r| replace(r, SUITE, &[("  alpha: 0.05", "  alpha: 0.0001")]),
        "- **weakened** suite `support-bot` `gates.alpha`: `0.05` → `0.0001`",
    ),
    (
        "min_effect 50, P2-02's metric low",
        |r| {
            replace(
                r,
                SUITE,
                &[
                    (
                        COMPLIANCE,
                        "compliance_percent: {severity: critical, min_effect: 50}",
                    ),
                    (P2_02_GATE, "    \"checkpoint:P2-02\": {severity: low}\n"),
                ],
            );
        },
        "- **weakened** suite `support-bot` `gates.metrics.compliance_percent.min_effect`: `2.0` → `50`",
    ),
    (
        "P2-02 deleted, compliance low",
        |r| {
            replace(
                r,
                SUITE,
                &[(P2_02, ""), (P2_02_GATE, ""), (COMPLIANCE, COMPLIANCE_LOW)],
            );
        },
        "- **weakened** suite `support-bot` `checkpoints[P2-02]`:",
    ),
    (
        "P2-02 reworded, compliance low",
        |r| {
            replace(
                r,
                SUITE,
                &[
                    (
                        "instruction: Never issue a refund without a supervisor approval first",
                        "instruction: Prefer a supervisor approval before a refund",
                    ),
                    (COMPLIANCE, COMPLIANCE_LOW),
                ],
            );
        },
        "- **weakened** suite `support-bot` `gates.metrics.compliance_percent.severity`: `critical` → `low`",
    ),
    (
        "suite renamed",
        |r| {
            replace(
                r,
                SUITE,
                &[("suite: support-bot\n", "suite: support-bot-v2\n")],
            );
        },
        "- **removed** suite `support-bot` `suite`: `gated` → —",
    ),
    (
        "baselines_dir: nowhere",
        |r| std::fs::write(r.join("agenteval.yaml"), "baselines_dir: nowhere\n").unwrap(),
        "- **added** `agenteval.yaml` `baselines_dir`: — → `nowhere`",
    ),
];

#[test]
fn nine_goalpost_edits_still_fail_with_the_base_rules() {
    for (name, edit, line) in EDITS {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let base = repository(root, edit);
        // With its own rules the pull request would not fail (a pass, or for the edits
        // that leave too few cases to test, `inconclusive`): the edit matters.
        let own = compare(root, &base, &["--rules-ref", "worktree"]);
        let md = String::from_utf8_lossy(&own.stdout).into_owned();
        assert!(
            md.starts_with("## ✅ agenteval-gate passed")
                || md.starts_with("## ⚠️ agenteval-gate inconclusive"),
            "{name}: {md}"
        );
        assert!(
            md.contains("Judged by this pull request's own rules"),
            "{name}: {md}"
        );

        let (md, stderr) = expect(&compare(root, &base, &[]), 2);
        let first_screen: String = md.lines().take(25).collect::<Vec<_>>().join("\n");
        assert!(
            first_screen.contains("### ⚠️ Changes to the gate, effective after merge"),
            "{name}: {first_screen}"
        );
        assert!(
            first_screen.contains(line),
            "{name}: {line}\n{first_screen}\n{stderr}"
        );
        let changes_at = md.find("Changes to the gate").unwrap();
        assert!(
            !md[..changes_at].contains("<details>"),
            "{name}: the changes are not folded"
        );
    }
}

#[test]
fn rules_from_the_base_are_recorded_and_unchanged_rules_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let base = repository(root, |r| {
        replace(
            r,
            SUITE,
            &[("agent_version: 0.3.0", "agent_version: 0.4.0")],
        );
    });
    let out_file = root.join("out.json");
    let (md, _) = expect(
        &compare(root, &base, &["--out", out_file.to_str().unwrap()]),
        2,
    );
    assert!(
        md.contains(&format!(
            "Rules read from `{}` (the pull request's base commit); this pull request does not change them.",
            &base[..12]
        )),
        "{md}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out_file).unwrap()).unwrap();
    assert_eq!(r["rules"]["kind"], "git");
    assert_eq!(r["rules"]["rev"], base.as_str());
    assert_eq!(r["rules"]["chosen_by"], "pull request base");
    assert!(r["rules"].get("changes").is_none(), "{}", r["rules"]);
}

#[test]
fn a_pr_config_cannot_send_the_judge_key_to_its_own_listener() {
    // The PR points the judge at a listener of its own; the base has no judge, so
    // the compare runs without one and the listener never hears a request.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let config = format!(
        "judge: {{provider: openai, model: gpt-4o-mini, base_url: 'http://127.0.0.1:{port}/v1', api_key_env: LEAKED_KEY}}\n"
    );
    let base = repository(root, |r| {
        std::fs::write(r.join("agenteval.yaml"), &config).unwrap();
    });
    let event = root.join("event.json");
    std::fs::write(
        &event,
        format!(r#"{{"pull_request": {{"number": 5, "base": {{"sha": "{base}"}}}}}}"#),
    )
    .unwrap();
    let out = bin()
        .current_dir(root)
        .args(["compare", "--baseline", "main"])
        .args(REGRESSED_INPUTS)
        .args(["--deterministic", "--format", "markdown"])
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &event)
        .env("LEAKED_KEY", "sk-secret-of-the-runner")
        .output()
        .unwrap();
    let (md, _) = expect(&out, 2);
    assert!(md.contains("`judge`"), "the change is listed: {md}");
    assert!(
        listener.accept().is_err(),
        "the PR's judge listener was contacted"
    );
}

#[test]
fn without_suite_the_base_lists_the_suites_too() {
    // The action's default: no `--suite`. The suites are listed from the base commit while
    // the folder also exists in the working tree; `git ls-tree` run inside that folder used
    // to list nothing, so every suite counted as "added by the pull request" and was judged
    // by the PR's own rules.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let base = repository(root, |r| {
        replace(r, SUITE, &[("  fail_on: critical", "  fail_on: never")]);
    });
    let event = root.join("event.json");
    std::fs::write(
        &event,
        format!(r#"{{"pull_request": {{"number": 5, "base": {{"sha": "{base}"}}}}}}"#),
    )
    .unwrap();
    let without_suite: Vec<&str> = REGRESSED_INPUTS
        .iter()
        .copied()
        .filter(|a| !matches!(*a, "--suite" | "support-bot"))
        .collect();
    assert_eq!(without_suite.len(), REGRESSED_INPUTS.len() - 2);
    let out = bin()
        .current_dir(root)
        .args(["compare", "--baseline", "main", "--format", "json"])
        .args(&without_suite)
        .arg("--deterministic")
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &event)
        .output()
        .unwrap();
    let (json, stderr) = expect(&out, 2);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["verdict"], "fail", "{stderr}");
    let changes = report["rules"]["changes"].as_array().unwrap();
    assert!(
        changes
            .iter()
            .all(|c| c["kind"] != "added" || c["path"] != "suite"),
        "no suite counted as added: {changes:?}"
    );
    assert!(
        changes
            .iter()
            .any(|c| c["path"] == "gates.fail_on" && c["kind"] == "weakened"),
        "{changes:?}"
    );
}
