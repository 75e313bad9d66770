//! `action.yml` and `.github/workflows/*.yml` parse (serde-saphyr) and say
//! what the docs promise: triggers, permissions, the commands they run, and
//! the links between them (the comment workflow names the fork workflow).

#![expect(
    clippy::unwrap_used,
    reason = "test fixtures panic when their setup fails"
)]

use serde_json::Value;

use crate::common::repo;

pub(super) fn yaml(rel: &str) -> Value {
    let text = std::fs::read_to_string(repo().join(rel)).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Every step of every job.
fn steps(workflow: &Value) -> Vec<&Value> {
    workflow["jobs"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|job| job["steps"].as_array().unwrap())
        .collect()
}

fn runs(workflow: &Value) -> String {
    steps(workflow)
        .iter()
        .filter_map(|s| s["run"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn uses<'a>(workflow: &'a Value, prefix: &str) -> Vec<&'a Value> {
    steps(workflow)
        .into_iter()
        .filter(|s| s["uses"].as_str().is_some_and(|u| u.starts_with(prefix)))
        .collect()
}

const WORKFLOWS: [&str; 5] = [
    "ci.yml",
    "agent-eval.yml",
    "baseline.yml",
    "agent-eval-fork.yml",
    "agent-eval-comment.yml",
];

#[test]
fn every_workflow_parses_with_triggers_permissions_and_jobs() {
    let on_disk: Vec<String> = std::fs::read_dir(repo().join(".github/workflows"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| WORKFLOWS.contains(&n.as_str()))
        .collect();
    assert_eq!(on_disk.len(), WORKFLOWS.len(), "{on_disk:?}");
    for name in WORKFLOWS {
        let w = yaml(&format!(".github/workflows/{name}"));
        assert!(w["name"].is_string(), "{name}: name");
        // `on` must stay a string key (YAML 1.1 would read it as `true`).
        assert!(w["on"].is_object(), "{name}: on = {}", w["on"]);
        assert!(w["permissions"].is_object(), "{name}: explicit permissions");
        let jobs = w["jobs"].as_object().unwrap();
        assert!(!jobs.is_empty(), "{name}");
        for (id, job) in jobs {
            assert_eq!(job["runs-on"], "ubuntu-latest", "{name}/{id}");
            assert!(!job["steps"].as_array().unwrap().is_empty(), "{name}/{id}");
        }
        for step in steps(&w) {
            if let Some(action) = step["uses"].as_str() {
                assert!(
                    action == "./" || action.contains("@v"),
                    "{name}: `{action}` is not pinned to a version"
                );
            }
        }
    }
}

#[test]
fn ci_runs_the_same_checks_as_the_ci_script() {
    let ci = yaml(".github/workflows/ci.yml");
    assert!(ci["on"]["pull_request"].is_null() && ci["on"].get("pull_request").is_some());
    assert_eq!(ci["on"]["push"]["branches"][0], "main");
    assert_eq!(ci["permissions"]["contents"], "read");
    let script = std::fs::read_to_string(repo().join(".ci/run")).unwrap();
    let runs = runs(&ci);
    for check in [
        "fmt --all --check",
        "clippy --all-targets --locked -- -D warnings",
        "test --locked",
        "fetch --locked",
    ] {
        assert!(
            script.contains(&format!("cargo {check}")),
            ".ci/run: {check}"
        );
        assert!(
            runs.contains(&format!("cargo +stable {check}")),
            "ci.yml: {check}\n{runs}"
        );
    }
}

#[test]
fn the_pull_request_gate_comments_with_the_local_action() {
    let w = yaml(".github/workflows/agent-eval.yml");
    assert!(w["on"].get("pull_request").is_some());
    assert_eq!(w["permissions"]["pull-requests"], "write");
    let gate = uses(&w, "./");
    assert_eq!(gate.len(), 1);
    assert_eq!(gate[0]["with"]["baseline"], "main");
    assert!(
        gate[0]["with"].get("comment").is_none(),
        "posts (the default)"
    );
    assert!(uses(&w, "actions/checkout@").len() == 1);
}

#[test]
fn baseline_updates_on_main_and_commits_only_changes() {
    let w = yaml(".github/workflows/baseline.yml");
    assert_eq!(w["on"]["push"]["branches"], serde_json::json!(["main"]));
    assert_eq!(
        w["on"]["push"]["paths-ignore"],
        serde_json::json!(["baselines/**"])
    );
    assert_eq!(w["permissions"]["contents"], "write");
    assert_eq!(w["concurrency"]["cancel-in-progress"], false);
    let job = &w["jobs"]["update"];
    assert_eq!(job["if"], "github.actor != 'github-actions[bot]'");
    assert_eq!(uses(&w, "./")[0]["with"]["command"], "install");
    let runs = runs(&w);
    for needle in [
        "agenteval-gate baseline update --name main",
        "git status --porcelain -- baselines",
        "git add -- baselines",
        "[skip ci]",
        "41898282+github-actions[bot]@users.noreply.github.com",
        "git pull --rebase origin main",
    ] {
        assert!(runs.contains(needle), "{needle}\n{runs}");
    }
}

#[test]
fn fork_pair_never_posts_from_the_untrusted_side() {
    let fork = yaml(".github/workflows/agent-eval-fork.yml");
    let comment = yaml(".github/workflows/agent-eval-comment.yml");

    // Part 1: `pull_request` (never `pull_request_target`), nothing writable.
    assert!(fork["on"].get("pull_request").is_some());
    assert!(fork["on"].get("pull_request_target").is_none());
    for (scope, level) in fork["permissions"].as_object().unwrap() {
        assert_eq!(level, "read", "{scope}");
    }
    let gate = uses(&fork, "./");
    assert_eq!(gate[0]["with"]["comment"], "false");
    assert_eq!(gate[0]["with"]["artifact-name"], "agenteval-gate-report");
    let uploads = uses(&fork, "actions/upload-artifact@");
    assert_eq!(uploads[0]["with"]["name"], "agenteval-gate-pr");
    assert!(runs(&fork).contains("> \"$RUNNER_TEMP/agenteval-pr/pr-number\""));

    // Part 2: started by part 1 (by its exact name), may write comments.
    assert_eq!(
        comment["on"]["workflow_run"]["workflows"],
        serde_json::json!([fork["name"]])
    );
    assert_eq!(
        comment["on"]["workflow_run"]["types"],
        serde_json::json!(["completed"])
    );
    assert_eq!(comment["permissions"]["pull-requests"], "write");
    assert_eq!(comment["permissions"]["actions"], "read");
    for checkout in uses(&comment, "actions/checkout@") {
        assert!(
            checkout.get("with").is_none(),
            "the default branch only, never the PR head: {checkout}"
        );
    }
    let download = uses(&comment, "actions/download-artifact@");
    assert_eq!(
        download[0]["with"]["run-id"],
        "${{ github.event.workflow_run.id }}"
    );
    assert_eq!(download[0]["with"]["pattern"], "agenteval-gate-*");
    let post = uses(&comment, "./");
    assert_eq!(post[0]["with"]["command"], "comment");
    assert_eq!(post[0]["with"]["pr"], "${{ steps.pr.outputs.number }}");
    let checks = runs(&comment);
    assert!(checks.contains("^[1-9][0-9]{0,9}$"), "{checks}");
    assert!(checks.contains(r#"gh api "repos/$REPOSITORY/pulls/$pr" --jq .head.sha"#));
}
