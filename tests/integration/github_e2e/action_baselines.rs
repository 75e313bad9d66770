//! Baselines on a branch of their own: the action's `baselines` step (fetch
//! the branch, or the pull request's base commit) and `command:
//! baseline-update` (commit to the branch and push, retrying a rejected
//! push), run with bash and the real binary against a bare repository that
//! plays `origin`.

#![expect(
    clippy::unwrap_used,
    reason = "test fixtures panic when their setup fails"
)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Command, Output};

use pretty_assertions::assert_eq;

use super::action::run_step;
use super::harness::read_outputs;
use crate::common::{git, outputs, repo};

const BRANCH: &str = "agenteval-baselines";

/// `origin` (bare) and a checkout of its `main` holding the code-review suite.
struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let origin = dir.path().join("origin.git");
        git(
            dir.path(),
            &["init", "-q", "--bare", origin.to_str().unwrap()],
        );
        let seed = dir.path().join("seed");
        std::fs::create_dir_all(seed.join("suites")).unwrap();
        let copied = Command::new("cp")
            .arg("-R")
            .arg(repo().join("suites/code-review"))
            .arg(seed.join("suites/"))
            .status()
            .unwrap();
        assert!(copied.success());
        git(&seed, &["init", "-q"]);
        git(&seed, &["add", "-A"]);
        git(&seed, &["commit", "-qm", "the suite"]);
        git(
            &seed,
            &["remote", "add", "origin", origin.to_str().unwrap()],
        );
        git(&seed, &["push", "-q", "origin", "HEAD:refs/heads/main"]);
        // The job's checkout: shallow, like actions/checkout.
        git(
            dir.path(),
            &[
                "clone",
                "-q",
                "--depth=1",
                &format!("file://{}", origin.display()),
                "checkout",
            ],
        );
        Self { dir }
    }

    fn origin(&self) -> PathBuf {
        self.dir.path().join("origin.git")
    }

    fn checkout(&self) -> PathBuf {
        self.dir.path().join("checkout")
    }

    /// Run action step `id` in the checkout with `env`.
    fn step(&self, id: &str, env: &[(&str, &str)]) -> (Output, HashMap<String, String>) {
        let github_output = self.dir.path().join("github_output");
        let _ = std::fs::remove_file(&github_output);
        let temp = self.dir.path().join("temp");
        std::fs::create_dir_all(&temp).unwrap();
        let mut all: Vec<(&str, String)> = vec![
            ("GITHUB_ACTION_PATH", repo().to_str().unwrap().to_owned()),
            ("GITHUB_OUTPUT", github_output.to_str().unwrap().to_owned()),
            (
                "GITHUB_PATH",
                self.dir
                    .path()
                    .join("github_path")
                    .to_str()
                    .unwrap()
                    .to_owned(),
            ),
            ("RUNNER_TEMP", temp.to_str().unwrap().to_owned()),
            ("HOME", self.dir.path().to_str().unwrap().to_owned()),
            ("GITHUB_TOKEN", "ghs_test".to_owned()),
        ];
        for (k, v) in env {
            all.retain(|(name, _)| name != k);
            all.push((k, (*v).to_owned()));
        }
        let out = run_step(id, &self.checkout(), &all);
        let outs = std::fs::read_to_string(&github_output)
            .map(|_| read_outputs(&github_output).into_iter().collect())
            .unwrap_or_default();
        (out, outs)
    }

    /// `command: baseline-update` of the code-review suite.
    fn update(&self, sha: &str) -> (Output, HashMap<String, String>) {
        let bin = assert_cmd::cargo::cargo_bin("agenteval-gate");
        self.step(
            "gate",
            &[
                ("AGENTEVAL_BIN", bin.to_str().unwrap()),
                ("INPUT_COMMAND", "baseline-update"),
                ("INPUT_BASELINE", "main"),
                ("INPUT_BASELINE_BRANCH", BRANCH),
                ("INPUT_SUITES", "code-review"),
                ("INPUT_EXTRA_ARGS", "--deterministic --isolated"),
                ("GITHUB_SHA", sha),
                ("GITHUB_REF", "refs/heads/main"),
                ("NO_COLOR", "1"),
            ],
        )
    }

    /// A file on the branch in `origin`.
    fn on_branch(&self, file: &str) -> String {
        git(&self.origin(), &["show", &format!("{BRANCH}:{file}")])
    }
}

#[test]
fn baseline_update_starts_the_branch_appends_and_retries_a_rejected_push() {
    let repo = Repo::new();
    let sha1 = "1111111111111111111111111111111111111111";
    let (out, outs) = repo.update(sha1);
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(&format!(
            "branch `{BRANCH}` does not exist yet; starting it"
        )),
        "{stdout}"
    );
    let tip = git(&repo.origin(), &["rev-parse", BRANCH]);
    assert_eq!(outs["commit"], tip);
    assert_eq!(outs["exit-code"], "0");
    let baseline: serde_json::Value =
        serde_json::from_str(&repo.on_branch("baselines/main/code-review.json")).unwrap();
    assert_eq!(
        baseline["baseline"]["git_sha"], sha1,
        "{}",
        baseline["baseline"]
    );
    assert_eq!(
        repo.on_branch("baselines/main/code-review.history.jsonl")
            .lines()
            .count(),
        1
    );
    // The branch holds the baselines only, and main was not touched.
    assert_eq!(
        git(&repo.origin(), &["ls-tree", "-r", "--name-only", BRANCH]),
        "baselines/main/code-review.history.jsonl\nbaselines/main/code-review.json"
    );
    assert_eq!(
        git(&repo.origin(), &["log", "--format=%s", "main"]),
        "the suite"
    );
    assert_eq!(
        git(
            &repo.origin(),
            &["log", "-1", "--format=%an <%ae>%n%s", BRANCH]
        ),
        "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>\n\
         agenteval: baseline main for 111111111111 [skip ci]"
    );
    // The token is never written into a git config.
    assert!(
        !std::fs::read_to_string(repo.checkout().join(".git/config"))
            .unwrap()
            .contains("AUTHORIZATION")
    );

    // Another update lands while ours is being made: the origin rejects our
    // first push once (as it does a non-fast-forward push), and the action
    // starts over from the tip, so both history lines are kept, once each.
    let hook = repo.origin().join("hooks/pre-receive");
    let marker = repo.dir.path().join("rejected-once");
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\nif [ ! -e '{m}' ]; then touch '{m}'; echo 'rejected: fetch first' >&2; exit 1; fi\n",
            m = marker.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let sha2 = "2222222222222222222222222222222222222222";
    let (out, outs) = repo.update(sha2);
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(marker.exists());
    assert!(
        stdout.contains(&format!(
            "::warning title=agenteval-gate::push to `{BRANCH}` rejected (attempt 1 of 5;"
        )),
        "{stdout}"
    );
    assert!(stdout.contains("(attempt 2)"), "{stdout}");
    assert_eq!(outs["commit"], git(&repo.origin(), &["rev-parse", BRANCH]));
    let history = repo.on_branch("baselines/main/code-review.history.jsonl");
    let shas: Vec<String> = history
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["git_sha"].as_str().unwrap_or_default().to_owned()
        })
        .collect();
    assert_eq!(shas, [sha1, sha2], "{history}");
    assert_eq!(
        git(&repo.origin(), &["rev-list", "--count", BRANCH]),
        "2",
        "appended, never force-pushed"
    );

    // A push that is always rejected: a clear failure after the attempts.
    std::fs::write(&hook, "#!/bin/sh\necho 'protected branch' >&2\nexit 1\n").unwrap();
    let out = {
        let bin = assert_cmd::cargo::cargo_bin("agenteval-gate");
        repo.step(
            "gate",
            &[
                ("AGENTEVAL_BIN", bin.to_str().unwrap()),
                ("INPUT_COMMAND", "baseline-update"),
                ("INPUT_BASELINE_BRANCH", BRANCH),
                ("INPUT_SUITES", "code-review"),
                ("INPUT_EXTRA_ARGS", "--deterministic --isolated"),
                ("AGENTEVAL_PUSH_ATTEMPTS", "1"),
                ("GITHUB_SHA", "3333333333333333333333333333333333333333"),
            ],
        )
        .0
    };
    assert_eq!(out.status.code(), Some(1));
    assert!(
        outputs(&out).0.contains(&format!(
            "::error title=agenteval-gate::could not push baseline `main` to `{BRANCH}` after 1 attempts"
        )),
        "{:?}",
        outputs(&out)
    );

    // No branch named: a usage error before anything runs.
    let (out, _) = repo.step(
        "gate",
        &[
            ("AGENTEVAL_BIN", "/bin/false"),
            ("INPUT_COMMAND", "baseline-update"),
            ("INPUT_BASELINE_BRANCH", ""),
        ],
    );
    assert_eq!(out.status.code(), Some(64));
    assert!(outputs(&out).0.contains("needs `baseline-branch`"));
}

#[test]
fn the_baselines_step_fetches_the_branch_or_the_base_commit() {
    let repo = Repo::new();
    // No branch yet: the empty tree, where no baseline exists.
    let (out, outs) = repo.step("baselines", &[("INPUT_BASELINE_BRANCH", BRANCH)]);
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let empty = git(
        &repo.checkout(),
        &["hash-object", "-t", "tree", "/dev/null"],
    );
    assert_eq!(outs["ref"], empty);
    assert!(
        outputs(&out).0.contains(&format!(
            "::notice title=agenteval-gate::branch `{BRANCH}` does not exist yet"
        )),
        "{:?}",
        outputs(&out)
    );
    assert_eq!(
        git(&repo.checkout(), &["ls-tree", "-r", &outs["ref"]]),
        "",
        "readable and empty"
    );
    // The binary on that output, in a pull request whose rules come from the base
    // commit: the first pull request passes with a note (issue 23, item 1).
    let base = git(&repo.checkout(), &["rev-parse", "HEAD"]);
    let event = repo.dir.path().join("event.json");
    std::fs::write(
        &event,
        format!(r#"{{"pull_request": {{"number": 1, "base": {{"sha": "{base}"}}}}}}"#),
    )
    .unwrap();
    let out = crate::common::bin()
        .current_dir(repo.checkout())
        .args(["compare", "--baseline", "main", "--deterministic"])
        .env("AGENTEVAL_BASELINE_REF", &outs["ref"])
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &event)
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stderr.contains("suite `code-review` has no baseline `main` yet"),
        "{stderr}"
    );
    assert!(stdout.contains("verdict: PASS"), "{stdout}");

    // The branch exists (written by another job): fetched, named for the tool.
    let seed = repo.dir.path().join("seed");
    git(&seed, &["checkout", "-q", "--orphan", BRANCH]);
    git(&seed, &["rm", "-rqf", "."]);
    std::fs::create_dir_all(seed.join("baselines/main")).unwrap();
    std::fs::write(seed.join("baselines/main/code-review.json"), "{}\n").unwrap();
    git(&seed, &["add", "-A"]);
    git(&seed, &["commit", "-qm", "baseline"]);
    git(
        &seed,
        &["push", "-q", "origin", &format!("HEAD:refs/heads/{BRANCH}")],
    );
    let (out, outs) = repo.step("baselines", &[("INPUT_BASELINE_BRANCH", BRANCH)]);
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    assert_eq!(outs["ref"], format!("origin/{BRANCH}"));
    assert_eq!(
        git(
            &repo.checkout(),
            &[
                "show",
                &format!("origin/{BRANCH}:baselines/main/code-review.json")
            ]
        ),
        "{}"
    );

    // In a pull request without a branch: the base commit, fetched into the
    // shallow checkout when missing; no output (the tool's default).
    git(&seed, &["checkout", "-q", "main"]);
    std::fs::write(seed.join("later.txt"), "x\n").unwrap();
    git(&seed, &["add", "-A"]);
    git(&seed, &["commit", "-qm", "later"]);
    let base = git(&seed, &["rev-parse", "HEAD"]);
    git(&seed, &["push", "-q", "origin", "HEAD:refs/heads/main"]);
    assert!(
        Command::new("git")
            .current_dir(repo.checkout())
            .args(["cat-file", "-e", &format!("{base}^{{commit}}")])
            .status()
            .unwrap()
            .code()
            != Some(0),
        "not in the shallow checkout yet"
    );
    let (out, outs) = repo.step("baselines", &[("BASE_SHA", &base)]);
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    assert!(outs.is_empty(), "{outs:?}");
    assert_eq!(
        git(&repo.checkout(), &["log", "-1", "--format=%s", &base]),
        "later"
    );

    // Names that are not branches, and a base that is not a SHA.
    for bad in ["-upload-pack=x", "a..b", "with space"] {
        let (out, _) = repo.step("baselines", &[("INPUT_BASELINE_BRANCH", bad)]);
        assert_eq!(out.status.code(), Some(64), "{bad}");
    }
    let (out, _) = repo.step("baselines", &[("BASE_SHA", "main; rm -rf /")]);
    assert_eq!(out.status.code(), Some(1));
}
