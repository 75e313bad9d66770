//! `compare` in a `pull_request` job: the sticky comment (created once, then
//! updated), the job summary, the step outputs and the annotations; a fork
//! PR (no request at all); a 403 (hint, and the verdict's exit code).

use pretty_assertions::assert_eq;
use wiremock::ResponseTemplate;

use super::harness::{Job, MARKER, PASSING, output, read_report, requests};
use crate::common::{outputs, regressed_compare_args};
use crate::github_api::fake::{Fake, github_error};

const COMMENTS: &str = "/repos/acme/widgets/issues/7/comments";

/// `title=` of an annotation, escaped the way the runner reads it.
fn escaped(title: &str) -> String {
    title
        .replace('%', "%25")
        .replace(':', "%3A")
        .replace(',', "%2C")
}

#[tokio::test]
async fn regressed_pull_request_comments_once_then_updates_in_place() {
    let fake = Fake::start().await;
    let job = Job::new("acme/widgets");
    let report_path = job.path("compare.json");
    let args = regressed_compare_args(&["--out", report_path.to_str().unwrap()]);

    let out = job.run(&fake, &args);
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");

    // Exactly one comment, created once, carrying the marker and the verdict line.
    let comments = fake.comments();
    assert_eq!(comments.len(), 1, "{comments:?}");
    assert_eq!(
        requests(&fake).await,
        [
            "GET /user",
            &format!("GET {COMMENTS}"),
            &format!("POST {COMMENTS}")
        ]
    );
    let body = &comments[0].body;
    let (marker, markdown) = body.split_once('\n').unwrap();
    assert_eq!(marker, MARKER);
    assert!(
        markdown.starts_with("## ❌ agenteval-gate failed: "),
        "{markdown}"
    );
    assert!(
        stderr.contains(
            "posted the agenteval-gate comment on pull request #7: https://github.com/acme/widgets/pull/7#issuecomment-1"
        ),
        "{stderr}"
    );

    // The job summary holds the full report: the comment's lead, and what
    // the short comment leaves to it (issue 23).
    let summary = job.summary();
    let lead = |md: &str| md.lines().take(5).collect::<Vec<_>>().join("\n");
    assert_eq!(lead(&summary), lead(markdown));
    assert!(markdown.contains("this run's job summary"), "{markdown}");
    assert!(summary.contains("<details><summary>All "), "{summary}");
    assert!(!markdown.contains("<details><summary>All "), "{markdown}");
    assert!(summary.len() > markdown.len());

    // Outputs: the verdict and the regressions of the saved report.
    let report = read_report(&report_path);
    assert_eq!(report["verdict"], "fail");
    let regressions = report["regressions"].as_array().unwrap().len();
    assert!(regressions >= 2, "{regressions}");
    let outs = job.outputs();
    assert_eq!(output(&outs, "verdict"), Some("fail"));
    assert_eq!(
        output(&outs, "regressions"),
        Some(regressions.to_string().as_str())
    );
    assert_eq!(output(&outs, "report-path"), report_path.to_str());

    // `::error` for each regression that fails the gate, `::warning` for tolerated ones.
    let annotations: Vec<&str> = stdout.lines().filter(|l| l.starts_with("::")).collect();
    let mut failing = 0;
    for m in report["metrics"].as_array().unwrap() {
        if m["status"] != "regression" {
            continue;
        }
        let fails = m["severity"] == report["fail_on"];
        failing += usize::from(fails);
        let prefix = format!(
            "::{} title={}::{} severity; Δ ",
            if fails { "error" } else { "warning" },
            escaped(&format!(
                "agenteval-gate: regression in {}/{}",
                m["suite"].as_str().unwrap(),
                m["name"].as_str().unwrap()
            )),
            m["severity"].as_str().unwrap()
        );
        assert!(
            annotations.iter().any(|a| a.starts_with(&prefix)),
            "{prefix}\n{annotations:#?}"
        );
    }
    assert_eq!(failing, 2, "P2-02 and compliance_percent are critical");
    assert_eq!(
        annotations
            .iter()
            .filter(|a| a.starts_with("::error "))
            .count(),
        failing
    );

    // Second run of the same job: the comment is updated, not duplicated.
    let again = job.run(&fake, &args);
    assert_eq!(again.status.code(), Some(2));
    let comments = fake.comments();
    assert_eq!(comments.len(), 1);
    assert_eq!(&comments[0].body, body, "deterministic: the same body");
    let log = requests(&fake).await;
    assert_eq!(
        &log[3..],
        [
            "GET /user",
            &format!("GET {COMMENTS}"),
            "PATCH /repos/acme/widgets/issues/comments/1"
        ]
    );
    assert_eq!(log.iter().filter(|r| r.starts_with("POST")).count(), 1);
    let (_, stderr) = outputs(&again);
    assert!(
        stderr.contains("updated the agenteval-gate comment on pull request #7"),
        "{stderr}"
    );
    // Summaries append, as the runner's file does within a step.
    let summary = job.summary();
    let (first, second) = summary.split_at(summary.len() / 2);
    assert_eq!(first, second);
    assert!(first.starts_with(markdown.lines().next().unwrap()));
}

#[tokio::test]
async fn fork_pull_request_sends_nothing_and_still_fails() {
    let fake = Fake::start().await;
    let job = Job::new("eve/widgets");

    let out = job.run(&fake, &regressed_compare_args(&[]));
    let (stdout, stderr) = outputs(&out);

    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(requests(&fake).await.is_empty(), "no HTTP request at all");
    assert!(fake.comments().is_empty());
    assert!(
        stderr.contains("note: pull request from the fork `eve/widgets`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("agenteval-gate comment --report <file> --pr <number>"),
        "{stderr}"
    );
    // The rest of the job still happens.
    assert!(job.summary().starts_with("## ❌ agenteval-gate failed: "));
    assert_eq!(output(&job.outputs(), "verdict"), Some("fail"));
    assert!(stdout.contains("\n::error title=agenteval-gate%3A regression in "));
}

#[tokio::test]
async fn permission_denied_prints_the_hint_and_the_verdict_wins() {
    let fake = Fake::start().await;
    let denied = ResponseTemplate::new(403)
        .set_body_json(github_error("Resource not accessible by integration"));
    fake.script("POST", r"/comments$", 10, denied).await;
    let job = Job::new("acme/widgets");

    let out = job.run(&fake, &regressed_compare_args(&[]));
    let (stdout, stderr) = outputs(&out);

    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(fake.comments().is_empty());
    assert!(
        stderr.contains(
            "warning: cannot post the PR comment: the token may not comment on pull request #7 in `acme/widgets`: Resource not accessible by integration"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("permissions:\n      pull-requests: write"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "publishing to GitHub failed in part; the verdict and exit code are unaffected"
        ),
        "{stderr}"
    );
    assert_eq!(output(&job.outputs(), "verdict"), Some("fail"));
}

#[tokio::test]
async fn passing_compare_posts_a_green_comment_and_exits_zero() {
    let fake = Fake::start().await;
    let job = Job::new("acme/widgets");

    let out = job.run(&fake, PASSING);
    let (stdout, stderr) = outputs(&out);

    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let comments = fake.comments();
    assert_eq!(comments.len(), 1);
    let (marker, markdown) = comments[0].body.split_once('\n').unwrap();
    assert_eq!(marker, MARKER, "the same sticky comment as a failing run");
    assert!(
        markdown.starts_with("## ✅ agenteval-gate passed: "),
        "{markdown}"
    );
    let summary = job.summary();
    assert_eq!(summary.lines().next(), markdown.lines().next());
    assert!(summary.contains("<details><summary>All "), "{summary}");
    let outs = job.outputs();
    assert_eq!(output(&outs, "verdict"), Some("pass"));
    assert_eq!(output(&outs, "regressions"), Some("0"));
    assert_eq!(output(&outs, "report-path"), Some(""), "no --out");
    assert!(!stdout.contains("::error"), "{stdout}");
}
