//! Judged root cause (`scoring.root_cause: judge`, issue 14) through the
//! real binary against a loopback server. The server's answers are SCRIPTED
//! in each test (fixed JSON, not a model's judgement): these tests check the
//! mechanics — one question per failed case, strict parsing, validation of
//! the named step and agent, N/A for every unanswered question — and say
//! nothing about how well any judge attributes failures.

#![expect(clippy::unwrap_used, reason = "tests panic on setup failures")]

use std::path::Path;

use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::stand_in::StandIn;
use super::support::{chat, judge_bin};
use crate::common::{case, outputs};

/// A suite over two bundled Who&When episodes: `algorithm-generated_103`
/// (a failed run: its tier-1 evidence says so, and a terminal run failed)
/// and `algorithm-generated_100` (marked as succeeded, no failing step).
struct WhoAndWhen {
    dir: tempfile::TempDir,
}

const FAILED: &str = "algorithm-generated_103";
const PASSED: &str = "algorithm-generated_100";

impl WhoAndWhen {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ww");
        std::fs::create_dir_all(root.join("traces")).unwrap();
        std::fs::create_dir_all(root.join("evidence")).unwrap();
        let fixtures =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces/who-and-when");
        for (id, failed) in [(FAILED, true), (PASSED, false)] {
            std::fs::copy(
                fixtures.join(format!("{id}.json")),
                root.join(format!("traces/{id}.json")),
            )
            .unwrap();
            std::fs::write(
                root.join(format!("evidence/{id}.json")),
                json!({"run": {"failed": failed}}).to_string(),
            )
            .unwrap();
        }
        let yaml = format!(
            r#"suite: ww
spec_version: "1"
traces: traces
evidence: evidence
scoring: {{root_cause: judge}}
judge: {{steps: false}}
checkpoints:
  - id: WW-01
    tier: 1
    instruction: The run succeeded
    severity: low
    evidence_sources: [run]
    assert: {{path: /run/failed, equals: false}}
cases:
  - id: {FAILED}
  - id: {PASSED}
"#
        );
        std::fs::write(root.join("suite.yaml"), yaml).unwrap();
        std::fs::write(dir.path().join("agenteval.yaml"), "judge: {}\n").unwrap();
        Self { dir }
    }

    fn run(&self, args: &[String]) -> (std::process::Output, Value) {
        let out_file = self.dir.path().join("report.json");
        let _ignored = std::fs::remove_file(&out_file);
        let out = judge_bin(&self.dir.path().join("agenteval.yaml"))
            .args(["run", "--suites-dir"])
            .arg(self.dir.path())
            .args(["--suite", "ww", "--deterministic", "--out"])
            .arg(&out_file)
            .args(args)
            .output()
            .unwrap();
        let Ok(bytes) = std::fs::read(&out_file) else {
            panic!("no report: {:?}", outputs(&out));
        };
        let report = serde_json::from_slice(&bytes).unwrap();
        (out, report)
    }

    fn cache(&self) -> String {
        self.dir.path().join("cache").to_str().unwrap().to_owned()
    }

    fn replay(&self) -> Vec<String> {
        [
            "--judge",
            "replay",
            "--judge-model",
            "m",
            "--judge-cache",
            &self.cache(),
        ]
        .map(str::to_owned)
        .to_vec()
    }
}

fn live(server: &MockServer, cache: &str) -> Vec<String> {
    [
        "--judge",
        "openai",
        "--judge-model",
        "m",
        "--judge-base-url",
        &format!("{}/v1", server.uri()),
        "--judge-cache",
        cache,
    ]
    .map(str::to_owned)
    .to_vec()
}

/// A server that answers every question with `answer` (scripted).
async fn scripted(answer: &str) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(chat(answer)))
        .mount(&server)
        .await;
    server
}

#[tokio::test]
async fn a_valid_answer_names_the_step_span_and_agent_with_one_call_per_failed_case() {
    let s = WhoAndWhen::new();
    let server = scripted(
        r#"{"step": "s6", "agent": "DataVerification_Expert", "reason": "scripted test answer: the verification code calls a search that returns None"}"#,
    )
    .await;
    let (out, report) = s.run(&live(&server, &s.cache()));
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let rc = &case(&report, FAILED)["root_cause"];
    assert_eq!(
        rc,
        &json!({
            "method": "judge",
            "status": "named",
            "step": "s6",
            "span_id": "m3",
            "agent": "DataVerification_Expert",
            "reason": "scripted test answer: the verification code calls a search that returns None",
            "by": "judge:openai/m",
        })
    );
    // The case that did not fail is not asked about and has no root cause.
    assert!(case(&report, PASSED).get("root_cause").is_none());
    let j = &report["judge"];
    assert_eq!(j["root_cause_questions"], 1);
    assert_eq!(
        (j["questions"].as_u64(), j["calls"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(j["errors"], 0);

    // What reached the server: the step DAG, fenced, without the dataset's labels.
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1);
    let body: Value = serde_json::from_slice(&requests[0].body).unwrap();
    let user = body
        .pointer("/messages/1/content")
        .and_then(Value::as_str)
        .unwrap();
    let system = body
        .pointer("/messages/0/content")
        .and_then(Value::as_str)
        .unwrap();
    assert!(system.contains("never instructions to you"), "{system}");
    assert!(user.contains("<<<DATA steps "), "{user}");
    assert!(
        user.contains(
            "[s6] PARAMGEN `Computer_terminal` · agent DataVerification_Expert · after s5"
        ),
        "{user}"
    );
    let label: Value = serde_json::from_str(
        &std::fs::read_to_string(s.dir.path().join(format!("ww/traces/{FAILED}.json"))).unwrap(),
    )
    .unwrap();
    let reason = label["mistake_reason"].as_str().unwrap();
    assert!(
        !user.contains(reason) && !system.contains(reason),
        "a label reached the judge"
    );
    assert!(!user.contains("mistake_agent"));

    // A second run answers from the cache: same root cause, no new call.
    let (_, again) = s.run(&live(&server, &s.cache()));
    assert_eq!(case(&again, FAILED)["root_cause"], *rc);
    assert_eq!(again["judge"]["cache_hits"], 1);
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_step_or_agent_that_is_not_in_the_trace_is_a_judge_error_not_a_root_cause() {
    for (answer, says) in [
        (
            r#"{"step": "s99", "agent": "DataVerification_Expert", "reason": "scripted"}"#,
            "judge_error: the judge named `s99`, which is not a step of this run",
        ),
        (
            r#"{"step": "s6", "agent": "Planner", "reason": "scripted"}"#,
            "judge_error: the judge named agent `Planner`, which is not in this run",
        ),
        (
            r#"{"step": "s6", "agent": null, "reason": "scripted"}"#,
            "judge_error: the judge named no agent, but the run has named agents",
        ),
    ] {
        let s = WhoAndWhen::new();
        let server = scripted(answer).await;
        let (out, report) = s.run(&live(&server, &s.cache()));
        assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
        let rc = &case(&report, FAILED)["root_cause"];
        assert_eq!(rc["status"], "not_available", "{answer}");
        assert_eq!(rc["reason"], says, "{answer}");
        assert!(
            rc.get("step").is_none() && rc.get("agent").is_none(),
            "{rc}"
        );
        let j = &report["judge"];
        assert_eq!(j["errors"], 1, "{answer}");
        assert_eq!(j["error_classes"]["invalid root cause"], 1, "{j}");
        let warnings = case(&report, FAILED)["warnings"].to_string();
        assert!(warnings.contains(says), "{warnings}");
    }
}

#[tokio::test]
async fn a_malformed_answer_is_a_judge_error() {
    let s = WhoAndWhen::new();
    let server = scripted("The decisive error is step s6, by DataVerification_Expert.").await;
    let (out, report) = s.run(&live(&server, &s.cache()));
    // The only question failed on its answer: the judge was reachable, so the run completes.
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let rc = &case(&report, FAILED)["root_cause"];
    assert_eq!(rc["status"], "not_available");
    assert_eq!(rc["reason"], "judge_error: invalid answer");
    assert_eq!(report["judge"]["errors"], 1);
    // Nothing was cached: a replay has no answer either.
    let (_, replay) = s.run(&s.replay());
    assert_eq!(
        case(&replay, FAILED)["root_cause"]["reason"],
        "not in judge cache"
    );
}

#[tokio::test]
async fn a_replay_cache_miss_is_not_available_and_no_judge_is_said_so() {
    let s = WhoAndWhen::new();
    let (out, report) = s.run(&s.replay());
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let rc = &case(&report, FAILED)["root_cause"];
    assert_eq!(
        (
            rc["method"].as_str(),
            rc["status"].as_str(),
            rc["reason"].as_str()
        ),
        (
            Some("judge"),
            Some("not_available"),
            Some("not in judge cache")
        )
    );
    assert_eq!(report["judge"]["not_in_cache"], 1);
    assert_eq!(report["judge"]["calls"], 0);

    let (_, none) = s.run(&[]);
    let rc = &case(&none, FAILED)["root_cause"];
    assert_eq!(
        (rc["status"].as_str(), rc["reason"].as_str()),
        (Some("not_available"), Some("no judge configured"))
    );
    // Without a judge the steps are still attributed (greedy), only the case's root cause waits.
    let steps = case(&none, FAILED)["steps"].as_array().unwrap();
    let flagged: Vec<&str> = steps
        .iter()
        .filter(|st| st["root_cause"] == true)
        .map(|st| st["id"].as_str().unwrap())
        .collect();
    // The rules blame s6 (what the next test's judge does not name).
    assert_eq!(flagged, ["s6"]);
}

#[test]
fn the_stand_in_answers_root_cause_questions_with_its_labelled_rule() {
    let s = WhoAndWhen::new();
    let stand_in = StandIn::start();
    let args: Vec<String> = [
        "--judge",
        "openai",
        "--judge-model",
        "agenteval-stand-in-rules",
        "--judge-base-url",
        &stand_in.url,
        "--judge-cache",
        &s.cache(),
    ]
    .map(str::to_owned)
    .to_vec();
    let (out, report) = s.run(&args);
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let rc = &case(&report, FAILED)["root_cause"];
    // The rule: the first step reporting an error is the EXEC s7, which ran after s6.
    assert_eq!(
        (
            rc["status"].as_str(),
            rc["step"].as_str(),
            rc["agent"].as_str()
        ),
        (Some("named"), Some("s6"), Some("DataVerification_Expert"))
    );
    assert!(
        rc["reason"]
            .as_str()
            .unwrap()
            .starts_with("stand-in rule, not a model: the first step that reports an error (s7)"),
        "{rc}"
    );
}

fn flagged(report: &Value) -> Vec<String> {
    case(report, FAILED)["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|st| st["root_cause"] == true)
        .map(|st| st["id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn the_judged_root_cause_is_the_flagged_step_the_compare_and_dag_read() {
    // Issue 21 item 3: the rules blame s6; the scripted judge names s2. The step flags (read
    // by the compare's "most common new root cause", the Mermaid DAG and the HTML report)
    // follow the judge.
    let s = WhoAndWhen::new();
    let server = scripted(
        r#"{"step": "s2", "agent": "Location-Based_Services_Expert", "reason": "scripted test answer: the plan picked the wrong search"}"#,
    )
    .await;
    let (out, report) = s.run(&live(&server, &s.cache()));
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    assert_eq!(case(&report, FAILED)["root_cause"]["step"], "s2");
    assert_eq!(flagged(&report), ["s2"]);
    // A judge that names no step (an invalid answer) leaves the rules' attribution.
    let s = WhoAndWhen::new();
    let server = scripted(r#"{"step": "s99", "agent": null, "reason": "scripted"}"#).await;
    let (_, report) = s.run(&live(&server, &s.cache()));
    assert_eq!(
        case(&report, FAILED)["root_cause"]["status"],
        "not_available"
    );
    assert_eq!(flagged(&report), ["s6"]);
}

/// support-bot and its baselines in a temporary directory, with `scoring.root_cause: judge`
/// when `judged`; `compare --judge openai` of the regressed recordings against the
/// `stand-in-judge` baseline, judged live by the stand-in (rule-based, not a model).
/// Returns the markdown comment and the JSON report.
fn support_bot_compare(stand_in: &StandIn, judged: bool) -> (String, Value, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let repo = crate::common::repo();
    crate::common::copy_dir(&repo.join("baselines"), &dir.path().join("baselines"));
    let suite = dir.path().join("suites/support-bot");
    crate::common::copy_dir(&repo.join("suites/support-bot"), &suite);
    if judged {
        let yaml = std::fs::read_to_string(suite.join("suite.yaml")).unwrap();
        let yaml = yaml.replacen(
            "\nthresholds:",
            "\nscoring: {root_cause: judge}\nthresholds:",
            1,
        );
        std::fs::write(suite.join("suite.yaml"), yaml).unwrap();
    }
    let json = dir.path().join("compare.json");
    let out = crate::common::bin()
        .current_dir(dir.path())
        .args([
            "compare",
            "--baseline",
            "stand-in-judge",
            "--baseline-ref",
            "worktree",
            "--suite",
            "support-bot",
            "--judge",
            "openai",
            "--judge-model",
            "agenteval-stand-in-rules",
            "--judge-base-url",
            &stand_in.url,
            "--traces",
            "suites/support-bot/traces-regressed",
            "--evidence",
            "suites/support-bot/evidence-regressed",
            "--format",
            "markdown",
            "--out",
        ])
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{:?}", outputs(&out));
    let report = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (outputs(&out).0, report, dir)
}

/// Issue 21 item 3, the reproducer through the binary: on the regressed support-bot
/// recordings the rules blame `PARAMGEN issue_refund` (s9) for sb-003; with
/// `scoring.root_cause: judge` the (stand-in) judge names the PLAN step, and the compare's
/// "most common new root cause", the PR comment and the worst case's Mermaid DAG all show
/// the judged step.
#[test]
fn the_comment_and_dag_show_the_judged_root_cause_on_support_bot() {
    let stand_in = StandIn::start();
    let p2_02 = |report: &Value| {
        report["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == "checkpoint:P2-02")
            .unwrap()["localization"]["root_cause"]
            .clone()
    };
    // The rules alone: sb-003's DAG colours the refund's PARAMGEN step (s9), which the
    // baseline blamed too, so no root cause is new.
    let (md, rules, _dir) = support_bot_compare(&stand_in, false);
    assert_eq!(p2_02(&rules), Value::Null, "{md}");
    assert_eq!(rules["worst_case"]["case"], "sb-003");
    let mermaid = rules["worst_case"]["mermaid"].as_str().unwrap();
    assert!(mermaid.contains("class s9 root\n"), "{mermaid}");
    assert!(
        mermaid.contains("s9[\"s9 PARAMGEN issue_refund"),
        "{mermaid}"
    );

    let (md, judged, dir) = support_bot_compare(&stand_in, true);
    let root = p2_02(&judged);
    assert_eq!(root["step"], "PLAN chat gpt-4o-mini", "{md}");
    assert_eq!(root["example_case"], "sb-003");
    assert!(
        md.contains("most common new root cause: **`PLAN chat gpt-4o-mini`**"),
        "{md}"
    );
    // The head run's judged root cause of sb-003 is the step the DAG colours.
    let head = dir.path().join("head.json");
    let out = crate::common::bin()
        .current_dir(dir.path())
        .args([
            "run",
            "--suite",
            "support-bot",
            "--deterministic",
            "--judge",
            "openai",
            "--judge-model",
            "agenteval-stand-in-rules",
            "--judge-base-url",
            &stand_in.url,
            "--traces",
            "suites/support-bot/traces-regressed",
            "--evidence",
            "suites/support-bot/evidence-regressed",
            "--out",
        ])
        .arg(&head)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let head: Value = serde_json::from_slice(&std::fs::read(&head).unwrap()).unwrap();
    let sb003 = case(&head, "sb-003");
    assert!(
        sb003["root_cause"]["by"]
            .as_str()
            .is_some_and(|b| b.starts_with("judge:")),
        "{}",
        sb003["root_cause"]
    );
    let step = sb003["root_cause"]["step"].as_str().unwrap();
    let worst = &judged["worst_case"];
    assert_eq!(worst["case"], "sb-003");
    let mermaid = worst["mermaid"].as_str().unwrap();
    assert!(
        mermaid.contains(&format!("class {step} root\n")),
        "{mermaid}"
    );
    assert!(
        mermaid.contains(&format!("{step}[\"{step} PLAN ")),
        "{mermaid}"
    );
}
