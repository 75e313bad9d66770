//! `comment --report F --pr N`, the trusted half of the fork-safe pattern:
//! it posts exactly what `compare` would have, under the same marker, and
//! its exit code says whether posting worked.

#![expect(
    clippy::unwrap_used,
    reason = "test fixtures panic when their setup fails"
)]

use std::path::Path;
use std::process::Output;

use pretty_assertions::assert_eq;
use wiremock::ResponseTemplate;

use super::harness::{Job, MARKER, requests};
use crate::common::{bin, outputs, regressed_compare_args, repo};
use crate::github_api::fake::{Fake, TOKEN, github_error};

/// `comment` as a `workflow_run` job runs it: repository, token and API URL
/// from the environment, no event of ours.
fn comment(fake: &Fake, report: &Path, pr: &str, extra_env: &[(&str, &str)]) -> Output {
    let mut cmd = bin();
    cmd.current_dir(repo())
        .args(["comment", "--report", report.to_str().unwrap(), "--pr", pr])
        .env("GITHUB_REPOSITORY", "acme/widgets")
        .env("GITHUB_API_URL", fake.api_url())
        .env("GITHUB_TOKEN", TOKEN);
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// The regressed compare of a fork PR (no comment), saved to `compare.json`.
fn fork_report(fake: &Fake) -> (Job, std::path::PathBuf) {
    let job = Job::new("eve/widgets");
    let report = job.path("compare.json");
    let args = regressed_compare_args(&["--out", report.to_str().unwrap()]);
    assert_eq!(job.run(fake, &args).status.code(), Some(2));
    (job, report)
}

#[tokio::test]
async fn saved_report_is_posted_and_shares_the_comment_with_compare() {
    let fake = Fake::start().await;
    let (fork_job, report) = fork_report(&fake);
    assert!(requests(&fake).await.is_empty());

    let out = comment(&fake, &report, "7", &[]);
    let (stdout, stderr) = outputs(&out);

    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let comments = fake.comments();
    assert_eq!(comments.len(), 1);
    // The comment `compare` renders, under the marker: the job summary's
    // lead (title, what blocks, where, why), the rest left to the summary.
    let (marker, body) = comments[0].body.split_once('\n').unwrap();
    assert_eq!(marker, MARKER);
    let lead = |md: &str| md.lines().take(5).collect::<Vec<_>>().join("\n");
    assert_eq!(lead(body), lead(&fork_job.summary()));
    assert!(body.contains("- **What blocks:** "), "{body}");
    assert!(body.contains("this run's job summary"), "{body}");
    assert!(
        stderr.contains(
            "posted the agenteval-gate comment (verdict: fail) on pull request #7 in `acme/widgets`: https://github.com/acme/widgets/pull/7#issuecomment-1"
        ),
        "{stderr}"
    );
    assert_eq!(stdout, "", "nothing on stdout");

    // A later same-repository run of `compare` updates that comment ...
    let job = Job::new("acme/widgets");
    assert_eq!(
        job.run(&fake, &regressed_compare_args(&[])).status.code(),
        Some(2)
    );
    // ... and so does posting the saved report again.
    let again = comment(&fake, &report, "7", &[]);
    assert_eq!(again.status.code(), Some(0));
    assert!(
        outputs(&again)
            .1
            .contains("updated the agenteval-gate comment")
    );
    assert_eq!(fake.comments().len(), 1);
    // `--format json`: what was posted, as one document on stdout (issue 23 item 9).
    let json = bin()
        .current_dir(repo())
        .args(["comment", "--report", report.to_str().unwrap(), "--pr", "7"])
        .args(["--format", "json"])
        .env("GITHUB_REPOSITORY", "acme/widgets")
        .env("GITHUB_API_URL", fake.api_url())
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap();
    assert_eq!(json.status.code(), Some(0), "{:?}", outputs(&json));
    let posted: serde_json::Value = serde_json::from_str(&outputs(&json).0).unwrap();
    assert_eq!(
        posted,
        serde_json::json!({
            "action": "updated",
            "url": "https://github.com/acme/widgets/pull/7#issuecomment-1",
            "pull_request": 7,
            "repository": "acme/widgets",
            "verdict": "fail",
            "truncated": false
        })
    );
    let log = requests(&fake).await;
    assert_eq!(log.iter().filter(|r| r.starts_with("POST ")).count(), 1);
    assert_eq!(
        log.iter()
            .filter(|r| *r == "PATCH /repos/acme/widgets/issues/comments/1")
            .count(),
        3
    );
}

#[tokio::test]
async fn repo_flag_and_bot_login_select_where_and_whose_comment() {
    let fake = Fake::start().await;
    let (_job, report) = fork_report(&fake);
    // An installation token cannot read `GET /user`: the bot login decides.
    fake.state.lock().unwrap().user_login = None;
    fake.state.lock().unwrap().author = "gate-app[bot]".to_owned();
    let theirs = fake.seed(&format!("{MARKER}\nquoted by a human"), "mallory");
    let ours = fake.seed(&format!("{MARKER}\nold"), "gate-app[bot]");

    let out = comment(
        &fake,
        &report,
        "7",
        &[
            ("GITHUB_REPOSITORY", "other/repo"),
            ("AGENTEVAL_BOT_LOGIN", "gate-app[bot]"),
        ],
    );
    let (_, stderr) = outputs(&out);
    // `GITHUB_REPOSITORY` names a repository the fake does not have.
    assert_eq!(out.status.code(), Some(69), "{stderr}");
    assert!(
        stderr.contains("check that pull request #7 exists in `other/repo`"),
        "{stderr}"
    );

    let mut cmd = bin();
    let out = cmd
        .current_dir(repo())
        .args(["comment", "--repo", "acme/widgets", "--pr", "7", "--report"])
        .arg(&report)
        .env("GITHUB_REPOSITORY", "other/repo")
        .env("GITHUB_API_URL", fake.api_url())
        .env("AGENTEVAL_GITHUB_TOKEN", TOKEN)
        .env("GITHUB_TOKEN", "ghs_not_this_one")
        .env("AGENTEVAL_BOT_LOGIN", "gate-app[bot]")
        .output()
        .unwrap();
    let (_, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let comments = fake.comments();
    assert_eq!(comments.len(), 2, "updated, not added");
    assert_eq!(comments[0].id, theirs);
    assert_eq!(comments[0].body, format!("{MARKER}\nquoted by a human"));
    assert_eq!(comments[1].id, ours);
    assert!(comments[1].body.contains("agenteval-gate failed"));
}

#[tokio::test]
async fn github_failures_exit_69_with_the_reason() {
    let fake = Fake::start().await;
    let (_job, report) = fork_report(&fake);
    let denied = ResponseTemplate::new(403)
        .set_body_json(github_error("Resource not accessible by integration"));
    fake.script("POST", r"/comments$", 1, denied).await;

    let out = comment(&fake, &report, "7", &[]);
    let (_, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(69), "{stderr}");
    assert!(
        stderr.contains("the token may not comment on pull request #7 in `acme/widgets`"),
        "{stderr}"
    );
    assert!(stderr.contains("pull-requests: write"), "{stderr}");
    assert!(fake.comments().is_empty());

    // GitHub down for every attempt: the listing is retried, then given up.
    let down = ResponseTemplate::new(502).set_body_string("<html>502 Bad Gateway</html>");
    fake.script("GET", r"/comments$", 100, down).await;
    let before = requests(&fake).await.len();
    let out = comment(&fake, &report, "7", &[]);
    let (_, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(69), "{stderr}");
    assert!(
        stderr.contains("GitHub answered HTTP 502 while trying to list the comments of pull request #7 in `acme/widgets`, after 4 attempt(s)"),
        "{stderr}"
    );
    let lists = requests(&fake).await[before..]
        .iter()
        .filter(|r| r.starts_with("GET /repos/"))
        .count();
    assert_eq!(lists, 4);
    assert!(fake.comments().is_empty());
}

#[tokio::test]
async fn bad_input_fails_before_any_request() {
    let fake = Fake::start().await;
    let dir = tempfile::tempdir().unwrap();
    let run_report = dir.path().join("run.json");
    std::fs::write(
        &run_report,
        r#"{"schema_version": 1, "suite": "s", "cases": [], "aggregate": {}}"#,
    )
    .unwrap();
    let missing = dir.path().join("missing.json");
    let (_job, report) = fork_report(&fake);

    let cases: Vec<(Output, i32, &str)> = vec![
        (
            comment(&fake, &run_report, "7", &[]),
            65,
            "this is a run report, not a compare report",
        ),
        (comment(&fake, &missing, "7", &[]), 74, "cannot read report"),
        (
            comment(&fake, &report, "0", &[]),
            64,
            "invalid value '0' for '--pr <N>'",
        ),
        (
            comment(&fake, &report, "7", &[("GITHUB_TOKEN", "")]),
            78,
            "no GitHub token",
        ),
        (
            comment(&fake, &report, "7", &[("GITHUB_REPOSITORY", "")]),
            78,
            "the repository is unknown",
        ),
        (
            comment(&fake, &report, "7", &[("GITHUB_API_URL", "ftp://ghe")]),
            78,
            "the GitHub API URL `ftp://ghe` is not valid",
        ),
    ];
    for (out, code, message) in cases {
        let (_, stderr) = outputs(&out);
        assert_eq!(out.status.code(), Some(code), "{message}: {stderr}");
        assert!(stderr.contains(message), "{message}: {stderr}");
    }
    assert!(requests(&fake).await.is_empty());
}

#[test]
fn help_documents_the_flags_and_the_environment() {
    let out = bin().args(["comment", "--help"]).output().unwrap();
    let (stdout, _) = outputs(&out);
    assert_eq!(out.status.code(), Some(0));
    for needle in [
        "--report <FILE>",
        "--pr <N>",
        "--repo <OWNER/NAME>",
        "GITHUB_TOKEN",
        "GITHUB_API_URL",
        "AGENTEVAL_BOT_LOGIN",
        "workflow_run",
        "69 GitHub unavailable",
    ] {
        assert!(stdout.contains(needle), "{needle}:\n{stdout}");
    }
    let top = bin().arg("--help").output().unwrap();
    assert!(
        outputs(&top).0.contains("comment "),
        "listed in the top-level help"
    );
}
