//! The action's `gate` step, run with bash and the real binary against the
//! fake GitHub: `compare` with `comment: false` and with the default, then
//! `comment`, and inputs that must never reach the tool.

#![expect(
    clippy::unwrap_used,
    reason = "test fixtures panic when their setup fails"
)]

use pretty_assertions::assert_eq;

use super::action::run_step;
use super::harness::{Job, MARKER, output, read_report, requests};
use crate::common::{outputs, repo};
use crate::github_api::fake::Fake;

/// The env of the `gate` step, as the runner would set it.
fn gate_env(job: &Job, fake: &Fake, inputs: &[(&str, &str)]) -> Vec<(&'static str, String)> {
    let mut env = job.env(fake);
    let get = |k: &str, default: &str| {
        inputs
            .iter()
            .find(|(n, _)| *n == k)
            .map_or(default, |(_, v)| *v)
            .to_owned()
    };
    env.extend([
        (
            "AGENTEVAL_BIN",
            assert_cmd::cargo::cargo_bin("agenteval-gate")
                .to_str()
                .unwrap()
                .to_owned(),
        ),
        ("INPUT_COMMAND", get("command", "compare")),
        ("INPUT_SUITES", get("suites", "")),
        ("INPUT_BASELINE", get("baseline", "main")),
        ("INPUT_FAIL_ON", get("fail-on", "")),
        ("INPUT_COMMENT", get("comment", "true")),
        ("INPUT_JUDGE", get("judge", "")),
        ("INPUT_JUDGE_MODEL", get("judge-model", "")),
        ("INPUT_JUDGE_BASE_URL", get("judge-base-url", "")),
        ("INPUT_EXTRA_ARGS", get("extra-args", "")),
        ("INPUT_PR", get("pr", "")),
        ("INPUT_REQUIRE_BASELINE", get("require-baseline", "false")),
        ("INPUT_BASELINE_BRANCH", get("baseline-branch", "")),
        ("BASELINE_REF", get("baseline-ref", "")),
        // The fake event's base sha is not a commit here: the PR's own rules.
        ("INPUT_RULES_REF", get("rules-ref", "worktree")),
        ("GITHUB_ACTION_PATH", repo().to_str().unwrap().to_owned()),
        ("REPORT_PATH", get("report", "")),
        (
            "GITHUB_PATH",
            job.path("github_path").to_str().unwrap().to_owned(),
        ),
    ]);
    env
}

#[tokio::test]
async fn the_gate_step_runs_compare_and_comment_with_the_inputs() {
    let fake = Fake::start().await;
    let job = Job::new("acme/widgets");
    let report = job.path("compare.json");
    let report_str = report.to_str().unwrap();
    let regressed = "--traces suites/support-bot/traces-regressed\n  --evidence suites/support-bot/evidence-regressed --deterministic --isolated";

    // `comment: false`: the regressed compare fails the step, posts nothing.
    let out = run_step(
        "gate",
        &repo(),
        &gate_env(
            &job,
            &fake,
            &[
                ("suites", "support-bot, "),
                ("comment", "false"),
                ("extra-args", regressed),
                ("report", report_str),
            ],
        ),
    );
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("`comment: false`: the token is withheld"),
        "{stdout}"
    );
    assert!(stderr.contains("no token in the environment"), "{stderr}");
    assert!(requests(&fake).await.is_empty());
    let outs = job.outputs();
    assert_eq!(output(&outs, "verdict"), Some("fail"));
    assert_eq!(output(&outs, "report-path"), Some(report_str));
    assert_eq!(output(&outs, "exit-code"), Some("2"));
    let report_json = read_report(&report);
    assert_eq!(
        report_json["suites"].as_array().unwrap().len(),
        1,
        "only support-bot"
    );
    let bin_dir = assert_cmd::cargo::cargo_bin("agenteval-gate")
        .parent()
        .unwrap()
        .to_owned();
    assert_eq!(
        std::fs::read_to_string(job.path("github_path")).unwrap(),
        format!("{}\n", bin_dir.display())
    );

    // `command: comment` posts the saved report.
    let out = run_step(
        "gate",
        &repo(),
        &gate_env(
            &job,
            &fake,
            &[("command", "comment"), ("pr", "7"), ("report", report_str)],
        ),
    );
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    assert_eq!(fake.comments().len(), 1);
    assert!(
        fake.comments()[0]
            .body
            .starts_with(&format!("{MARKER}\n## ❌"))
    );
    assert_eq!(output(&job.outputs(), "exit-code"), Some("0"));

    // The default `comment: true` on the passing recordings updates it: ✅, exit 0.
    let out = run_step(
        "gate",
        &repo(),
        &gate_env(
            &job,
            &fake,
            &[
                ("suites", "support-bot"),
                ("extra-args", "--deterministic --isolated"),
                ("report", report_str),
            ],
        ),
    );
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let comments = fake.comments();
    assert_eq!(comments.len(), 1);
    assert!(comments[0].body.starts_with(&format!("{MARKER}\n## ✅")));
    assert_eq!(output(&job.outputs(), "verdict"), Some("pass"));

    // A PR number that is not one never reaches the tool.
    let out = run_step(
        "gate",
        &repo(),
        &gate_env(
            &job,
            &fake,
            &[
                ("command", "comment"),
                ("pr", "7; true"),
                ("report", report_str),
            ],
        ),
    );
    assert_eq!(out.status.code(), Some(64));
    assert!(
        outputs(&out)
            .0
            .contains("needs `pr`, a pull request number (got `7; true`)")
    );

    // An unset judge is not exported (an empty `AGENTEVAL_JUDGE` is a usage
    // error); a set one is, and without a model it is a configuration error.
    let out = run_step(
        "gate",
        &repo(),
        &gate_env(
            &job,
            &fake,
            &[
                ("judge", "openai"),
                ("suites", "support-bot"),
                ("report", report_str),
                ("extra-args", "--isolated"),
            ],
        ),
    );
    assert_eq!(out.status.code(), Some(78));
    assert!(
        outputs(&out)
            .1
            .contains("no judge model for suite `support-bot`")
    );
}

/// A repository that just added the gate: no baseline anywhere yet.
#[tokio::test]
async fn the_first_pull_request_passes_unless_a_baseline_is_required() {
    let fake = Fake::start().await;
    let job = Job::new("acme/widgets");
    let empty = job.path("no-baselines");
    std::fs::create_dir_all(&empty).unwrap();
    let report = job.path("compare.json");
    let extra = format!(
        "--baselines-dir {} --deterministic --isolated --tier smoke",
        empty.display()
    );
    let run = |require: &str| {
        run_step(
            "gate",
            &repo(),
            &gate_env(
                &job,
                &fake,
                &[
                    ("suites", "code-review"),
                    ("comment", "false"),
                    ("require-baseline", require),
                    ("extra-args", &extra),
                    ("report", report.to_str().unwrap()),
                ],
            ),
        )
    };

    let out = run("false");
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stderr.contains("has no baseline `main` yet"), "{stderr}");
    assert_eq!(output(&job.outputs(), "exit-code"), Some("0"));

    let out = run("true");
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(65), "{stdout}\n{stderr}");
    assert_eq!(output(&job.outputs(), "exit-code"), Some("65"));

    let out = run("yes");
    assert_eq!(out.status.code(), Some(64));
    assert!(
        outputs(&out)
            .0
            .contains("input `require-baseline` is `yes`; expected `true` or `false`")
    );
}

/// A pull request from a fork, through the action with its defaults: the
/// token is read-only there, so nothing is sent to GitHub, and the step still
/// fails on the regression (the check is what the fork author sees).
#[tokio::test]
async fn a_fork_pull_request_gates_without_posting() {
    let fake = Fake::start().await;
    let job = Job::new("eve/widgets");
    let report = job.path("compare.json");
    let regressed = "--traces suites/support-bot/traces-regressed --evidence suites/support-bot/evidence-regressed --deterministic --isolated";
    let out = run_step(
        "gate",
        &repo(),
        &gate_env(
            &job,
            &fake,
            &[
                ("suites", "support-bot"),
                ("extra-args", regressed),
                ("report", report.to_str().unwrap()),
            ],
        ),
    );
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("pull request from the fork `eve/widgets`"),
        "{stderr}"
    );
    assert!(requests(&fake).await.is_empty(), "no request at all");
    assert!(fake.comments().is_empty());
    assert_eq!(output(&job.outputs(), "verdict"), Some("fail"));
    assert!(
        job.summary().contains("agenteval-gate failed"),
        "the summary still has the report"
    );
    assert_eq!(read_report(&report)["verdict"], "fail");
}

/// Run mode where every agent dies at start-up for one cause (a secret a
/// fork pull request does not get): through the action, the step exits 69
/// ("could not evaluate"), never 2, and the comment says so.
#[tokio::test]
async fn an_agent_that_cannot_start_is_could_not_evaluate_not_a_regression() {
    let fake = Fake::start().await;
    let job = Job::new("acme/widgets");
    let ids = ["c1", "c2", "c3", "c4", "c5", "c6"];
    let ok: Vec<(&str, &str)> = ids.iter().map(|id| (*id, "ok")).collect();
    let s = crate::runner::AgentSuite::new("", &ok);
    let update = crate::common::bin()
        .current_dir(s.dir.path())
        .args([
            "baseline",
            "update",
            "--name",
            "main",
            "--suite",
            "agents",
            "--deterministic",
        ])
        .output()
        .unwrap();
    assert_eq!(update.status.code(), Some(0), "{:?}", outputs(&update));
    let yaml = s.path("suites/agents/suite.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(&yaml, text.replace("behaviour: ok", "behaviour: crash")).unwrap();

    let report = job.path("compare.json");
    let out = run_step(
        "gate",
        s.dir.path(),
        &gate_env(
            &job,
            &fake,
            &[
                ("suites", "agents"),
                ("extra-args", "--isolated"),
                ("report", report.to_str().unwrap()),
            ],
        ),
    );
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(69), "{stdout}\n{stderr}");
    assert_eq!(output(&job.outputs(), "exit-code"), Some("69"));
    let comments = fake.comments();
    assert_eq!(comments.len(), 1, "{stderr}");
    assert!(
        comments[0].body.contains("could not evaluate the agent"),
        "{}",
        comments[0].body
    );
    assert!(
        comments[0]
            .body
            .contains("6 of 6 cases failed the same way")
    );
}
