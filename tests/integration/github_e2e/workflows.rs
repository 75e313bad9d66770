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

const WORKFLOWS: [&str; 7] = [
    "ci.yml",
    "agent-eval.yml",
    "baseline.yml",
    "agent-eval-fork.yml",
    "agent-eval-comment.yml",
    "agent-eval-sharded.yml",
    "release.yml",
];

/// `uses:` names a commit SHA, and the line says which version it is.
pub(super) fn assert_pinned(file: &str, action: &str) {
    let (name, sha) = action
        .split_once('@')
        .unwrap_or_else(|| panic!("{file}: `{action}` has no ref"));
    assert!(
        sha.len() == 40
            && sha
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
        "{file}: `{action}` is not pinned to a commit SHA"
    );
    assert!(name.contains('/'), "{file}: {action}");
    let text = std::fs::read_to_string(repo().join(file)).unwrap();
    for line in text.lines().filter(|l| l.contains(action)) {
        let comment = line.split_once(" # ").map(|(_, c)| c.trim());
        assert!(
            comment.is_some_and(|c| c.starts_with('v')),
            "{file}: `{line}` needs its version in a comment"
        );
    }
}

#[test]
fn every_workflow_parses_with_triggers_permissions_and_jobs() {
    let on_disk: Vec<String> = std::fs::read_dir(repo().join(".github/workflows"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut sorted = on_disk.clone();
    sorted.sort();
    let mut expected: Vec<String> = WORKFLOWS.iter().map(|s| (*s).to_owned()).collect();
    expected.sort();
    assert_eq!(sorted, expected, "every workflow is checked here");
    for name in WORKFLOWS {
        let file = format!(".github/workflows/{name}");
        let w = yaml(&file);
        assert!(w["name"].is_string(), "{name}: name");
        // `on` must stay a string key (YAML 1.1 would read it as `true`).
        assert!(w["on"].is_object(), "{name}: on = {}", w["on"]);
        // Nothing at the workflow level: each job asks for what it needs.
        assert_eq!(
            w["permissions"],
            serde_json::json!({}),
            "{name}: permissions"
        );
        assert!(
            w["concurrency"]["group"]
                .as_str()
                .is_some_and(|g| !g.is_empty()),
            "{name}: concurrency"
        );
        let jobs = w["jobs"].as_object().unwrap();
        assert!(!jobs.is_empty(), "{name}");
        for (id, job) in jobs {
            if name != "release.yml" {
                assert_eq!(job["runs-on"], "ubuntu-latest", "{name}/{id}");
            }
            assert!(!job["steps"].as_array().unwrap().is_empty(), "{name}/{id}");
            assert!(job["permissions"].is_object(), "{name}/{id}: permissions");
            let minutes = job["timeout-minutes"].as_u64();
            assert!(
                minutes.is_some_and(|m| (1..=60).contains(&m)),
                "{name}/{id}: timeout-minutes {minutes:?}"
            );
            for (scope, level) in job["permissions"].as_object().unwrap() {
                assert!(
                    level == "read" || level == "write",
                    "{name}/{id}: {scope}: {level}"
                );
            }
        }
        for step in steps(&w) {
            if let Some(action) = step["uses"].as_str() {
                if action == "./" {
                    continue;
                }
                assert_pinned(&file, action);
                if action.starts_with("actions/checkout@") {
                    assert_eq!(
                        step["with"]["persist-credentials"], false,
                        "{name}: checkout keeps no token in .git/config"
                    );
                }
            }
        }
    }
}

/// Jobs that may write, and what: everything else is read-only.
#[test]
fn write_permissions_are_where_they_are_needed_only() {
    let mut writes = Vec::new();
    for name in WORKFLOWS {
        let w = yaml(&format!(".github/workflows/{name}"));
        for (id, job) in w["jobs"].as_object().unwrap() {
            for (scope, level) in job["permissions"].as_object().unwrap() {
                if level == "write" {
                    writes.push(format!("{name}/{id}: {scope}"));
                }
            }
        }
    }
    writes.sort();
    assert_eq!(
        writes,
        [
            "agent-eval-comment.yml/comment: pull-requests",
            "agent-eval-sharded.yml/baseline: contents",
            "agent-eval-sharded.yml/merge: pull-requests",
            "agent-eval.yml/gate: pull-requests",
            "baseline.yml/update: contents",
            "release.yml/publish: contents",
        ]
    );
}

#[test]
fn ci_runs_the_same_checks_as_the_ci_script() {
    let ci = yaml(".github/workflows/ci.yml");
    assert!(ci["on"]["pull_request"].is_null() && ci["on"].get("pull_request").is_some());
    assert_eq!(ci["on"]["push"]["branches"][0], "main");
    assert_eq!(ci["jobs"]["check"]["permissions"]["contents"], "read");
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
    // zizmor and shellcheck, where the registries can install them.
    assert!(script.contains("bash scripts/lint-actions.sh --install"));
    assert!(runs.contains("bash scripts/lint-actions.sh --install"));
}

#[test]
fn the_pull_request_gate_comments_with_the_local_action() {
    let w = yaml(".github/workflows/agent-eval.yml");
    assert!(w["on"].get("pull_request").is_some());
    assert_eq!(w["jobs"]["gate"]["permissions"]["pull-requests"], "write");
    assert_eq!(w["concurrency"]["cancel-in-progress"], true);
    let gate = uses(&w, "./");
    assert_eq!(gate.len(), 1);
    assert_eq!(gate[0]["with"]["baseline"], "main");
    assert_eq!(gate[0]["with"]["baseline-branch"], "agenteval-baselines");
    assert!(
        gate[0]["with"].get("comment").is_none(),
        "posts (the default)"
    );
    assert!(uses(&w, "actions/checkout@").len() == 1);
}

#[test]
fn baseline_updates_on_main_go_to_the_baselines_branch_and_are_never_cancelled() {
    let w = yaml(".github/workflows/baseline.yml");
    assert_eq!(w["on"]["push"]["branches"], serde_json::json!(["main"]));
    assert_eq!(w["concurrency"]["cancel-in-progress"], false);
    let job = &w["jobs"]["update"];
    assert_eq!(job["permissions"], serde_json::json!({"contents": "write"}));
    let update = uses(&w, "./");
    assert_eq!(update.len(), 1);
    assert_eq!(update[0]["with"]["command"], "baseline-update");
    assert_eq!(update[0]["with"]["baseline"], "main");
    // The branch the pull request gates read.
    let gate = yaml(".github/workflows/agent-eval.yml");
    assert_eq!(
        update[0]["with"]["baseline-branch"],
        uses(&gate, "./")[0]["with"]["baseline-branch"]
    );
    assert_eq!(runs(&w), "", "the action does the commit and the push");

    // The sharded example: pull requests may be cancelled, pushes to main
    // (whose last job writes the baseline) never.
    let sharded = yaml(".github/workflows/agent-eval-sharded.yml");
    assert_eq!(
        sharded["concurrency"]["cancel-in-progress"],
        "${{ github.event_name == 'pull_request' }}"
    );
    let baseline = &sharded["jobs"]["baseline"];
    assert_eq!(
        baseline["if"],
        "github.event_name == 'push' && github.ref == 'refs/heads/main'"
    );
    let step = baseline["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["uses"] == "./")
        .unwrap();
    assert_eq!(step["with"]["command"], "baseline-update");
    assert_eq!(step["with"]["baseline-branch"], "agenteval-baselines");
}

#[test]
fn the_release_builds_five_targets_and_publishes_sums_and_the_commit() {
    let w = yaml(".github/workflows/release.yml");
    assert_eq!(
        w["on"]["push"]["tags"],
        serde_json::json!(["v[0-9]+.[0-9]+.[0-9]+*"])
    );
    assert_eq!(w["concurrency"]["cancel-in-progress"], false);
    let targets: Vec<&str> = w["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["target"].as_str().unwrap())
        .collect();
    // The targets the install step maps runners to.
    let install = std::fs::read_to_string(repo().join("scripts/action-install.sh")).unwrap();
    for target in &targets {
        assert!(install.contains(&format!("target={target}")), "{target}");
    }
    assert_eq!(targets.len(), 5);
    let runs = runs(&w);
    assert!(runs.contains("bash scripts/release-build.sh --out dist \"$TARGET\""));
    assert!(runs.contains("> SHA256SUMS"));
    assert!(runs.contains("echo \"$COMMIT\" > COMMIT"));
    assert!(runs.contains("gh release create \"$TAG\" --verify-tag"));
    assert!(runs.contains("./agenteval-gate-*.tar.gz SHA256SUMS COMMIT"));
}

#[test]
fn fork_pair_never_posts_from_the_untrusted_side() {
    let fork = yaml(".github/workflows/agent-eval-fork.yml");
    let comment = yaml(".github/workflows/agent-eval-comment.yml");

    // Part 1: `pull_request` (never `pull_request_target`), nothing writable.
    assert!(fork["on"].get("pull_request").is_some());
    assert!(fork["on"].get("pull_request_target").is_none());
    for (scope, level) in fork["jobs"]["gate"]["permissions"].as_object().unwrap() {
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
    let job = &comment["jobs"]["comment"];
    assert_eq!(job["permissions"]["pull-requests"], "write");
    assert_eq!(job["permissions"]["actions"], "read");
    for checkout in uses(&comment, "actions/checkout@") {
        assert_eq!(
            checkout["with"],
            serde_json::json!({"persist-credentials": false}),
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
