//! Item 7: in a pull request `compare` reads the baseline from the PR's
//! base commit, so a PR that regenerates `baselines/` from its own
//! regressed runs still fails; the comment names the edited files. Tested
//! in a real git repository.

use std::path::Path;

use super::expect;
use crate::common::{REGRESSED_INPUTS, bin, copy_dir, git, repo};

/// A repository whose `main` has the example baseline, and a PR commit on
/// top that rewrote `baselines/main/` from the regressed traces.
fn repository() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    copy_dir(
        &repo().join("suites/support-bot"),
        &root.join("suites/support-bot"),
    );
    copy_dir(&repo().join("baselines/main"), &root.join("baselines/main"));
    for f in std::fs::read_dir(root.join("baselines/main")).unwrap() {
        let f = f.unwrap().path();
        if !f
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("support-bot")
        {
            std::fs::remove_file(f).unwrap();
        }
    }
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "base"]);
    let base = git(root, &["rev-parse", "HEAD"]);
    git(root, &["checkout", "-q", "-b", "pr"]);
    let out = bin()
        .current_dir(root)
        .args(["baseline", "update", "--name", "main", "--history-cap", "1"])
        .args(REGRESSED_INPUTS)
        .arg("--deterministic")
        .output()
        .unwrap();
    expect(&out, 0);
    git(root, &["commit", "-q", "-am", "regenerate baselines"]);
    (dir, base)
}

fn compare(root: &Path, extra: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = bin();
    cmd.current_dir(root)
        .arg("compare")
        .args(REGRESSED_INPUTS)
        .arg("--deterministic")
        .args(extra);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn a_pull_request_cannot_move_its_own_goalposts() {
    let (dir, base) = repository();
    let root = dir.path();

    // The attack: against its own rewritten baseline the PR passes.
    expect(&compare(root, &["--baseline-ref", "worktree"], &[]), 0);

    // In a pull_request event the base commit's baseline is used: it fails,
    // and the comment names the files the PR changed.
    let event = root.join("event.json");
    std::fs::write(
        &event,
        format!(r#"{{"number": 5, "pull_request": {{"number": 5, "base": {{"sha": "{base}"}}}}}}"#),
    )
    .unwrap();
    let ev = event.to_str().unwrap();
    let out = compare(
        root,
        &["--format", "markdown"],
        &[
            ("GITHUB_EVENT_NAME", "pull_request"),
            ("GITHUB_EVENT_PATH", ev),
        ],
    );
    let (md, _) = expect(&out, 2);
    assert!(
        md.contains(&format!(
            "Baseline read from `{base}` (the pull request's base commit)"
        )),
        "{md}"
    );
    assert!(md.contains("This pull request changes baseline files: `baselines/main/support-bot.history.jsonl`, `baselines/main/support-bot.json`"), "{md}");

    // The same through the flag and its environment variable, and the JSON
    // report records the source.
    let report = root.join("out.json");
    let out = compare(
        root,
        &["--baseline-ref", &base, "--out", report.to_str().unwrap()],
        &[],
    );
    expect(&out, 2);
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["baseline"]["source"]["kind"], "git");
    assert_eq!(r["baseline"]["source"]["rev"], base.as_str());
    assert_eq!(
        r["baseline"]["source"]["edited"].as_array().unwrap().len(),
        2
    );
    expect(
        &compare(root, &[], &[("AGENTEVAL_BASELINE_REF", "main")]),
        2,
    );
    // The flag wins over the event (local use).
    expect(
        &compare(
            root,
            &["--baseline-ref", "worktree"],
            &[
                ("GITHUB_EVENT_NAME", "pull_request"),
                ("GITHUB_EVENT_PATH", ev),
            ],
        ),
        0,
    );

    // A revision that is not there fails closed with a hint.
    let (_, stderr) = expect(
        &compare(root, &["--baseline-ref", "origin/agenteval-baselines"], &[]),
        78,
    );
    assert!(stderr.contains("is not a commit"), "{stderr}");
    // A revision without the baseline file: the usual "no baseline" (a
    // note and a pass, or 65 with `--require-baseline`).
    git(root, &["checkout", "-q", "--orphan", "empty"]);
    git(root, &["rm", "-q", "-r", "--cached", "baselines"]);
    git(root, &["commit", "-q", "-m", "no baselines"]);
    let (_, stderr) = expect(&compare(root, &["--baseline-ref", "empty"], &[]), 0);
    assert!(stderr.contains("has no baseline `main` yet"), "{stderr}");
    let (_, stderr) = expect(
        &compare(
            root,
            &["--baseline-ref", "empty", "--require-baseline"],
            &[],
        ),
        65,
    );
    assert!(
        stderr.contains("empty:baselines/main/support-bot.json"),
        "{stderr}"
    );
}
