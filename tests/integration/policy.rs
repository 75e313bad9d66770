//! Policy checkpoints through the real binary (issue 10): every tier-2 form
//! on a pass and a fail trace, captures across sub-agents, `applies_to` N/A
//! and its interplay with BLOCKED, task success from ground truth, lint of
//! what a new user gets wrong, and the airline example on real tau-bench
//! episodes with one rule broken at a time.

#![expect(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::{bin, case, copy_dir, fixture, outputs, repo, run_report};

/// case id → checkpoint id → (result, notes, `evaluated_by`).
fn results(report: &Value) -> BTreeMap<String, BTreeMap<String, (String, String, String)>> {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let cps = c["checkpoints"]
                .as_array()
                .unwrap()
                .iter()
                .map(|cp| {
                    let s = |k: &str| cp[k].as_str().unwrap_or_default().to_owned();
                    (s("id"), (s("result"), s("notes"), s("evaluated_by")))
                })
                .collect();
            (c["id"].as_str().unwrap().to_owned(), cps)
        })
        .collect()
}

/// The fixture suite `policy`: each row is one case, its results for
/// P1-01, P2-01 … P2-08 (P pass, F fail, - N/A, B blocked), and its task success.
#[test]
fn every_form_passes_and_fails_the_traces_built_for_it() {
    let expected: [(&str, &str, Option<f64>); 13] = [
        ("c-ok", "P P - P P P - - P", Some(1.0)),
        // P2-01 each/preceded_by + none_between: the last user message is no "yes".
        ("c-noconfirm", "P F - P P P - - P", Some(0.0)),
        // P2-03 each + capture, P2-08 order + capture: cancels O2 after reading O1.
        ("c-wrongread", "F P - F P - - - F", Some(0.0)),
        // P2-04 never [X, Y] + capture: cancels the order it read as shipped.
        ("c-shipped", "F P - P F - - - P", Some(0.0)),
        // P2-02 each/followed_by within 2.
        ("c-book", "P P P - P - - - -", Some(1.0)),
        ("c-noreport", "P P F - P - - - -", Some(1.0)),
        // P2-05 before/then + capture: refunds 400 after reading 40.
        ("c-refund-wrong", "F P - P P F - - -", Some(0.0)),
        // P2-06 applies_to.cases; P2-07 applies_to.evidence (vip) and never.
        ("c-vip", "P P - P P P P F -", Some(1.0)),
        // In scope and constrained: BLOCKED.
        ("c-vip-sandbox", "P P - P P P - B -", Some(1.0)),
        // Constrained but out of scope: N/A wins, spec health untouched.
        ("c-sandbox", "P P - P P P - - -", Some(1.0)),
        // No evidence file: tier 1 and the evidence scope are N/A, task success undecided.
        ("c-noevidence", "- P - P P P - - -", None),
        // OTLP trace: the sub-agent `researcher` reads, the main agent cancels.
        ("c-sub", "P P - P P - - - P", Some(1.0)),
        ("c-sub-wrong", "F P - F P - - - F", Some(0.0)),
    ];
    let report = run_report(&fixture("suites"), "policy");
    let all = results(&report);
    let letter = |r: &str| match r {
        "PASS" => "P",
        "FAIL" => "F",
        "N/A" => "-",
        "BLOCKED" => "B",
        other => panic!("unexpected {other}"),
    };
    for (id, row, task) in expected {
        let got: Vec<&str> = all[id].values().map(|(r, _, _)| letter(r)).collect();
        assert_eq!(got.join(" "), row, "{id}: {:#?}", all[id]);
        assert_eq!(
            case(&report, id)["scores"]["task_success"].as_f64(),
            task,
            "{id}"
        );
    }

    // Scoped-out checkpoints say why and who decided; they do not touch spec health.
    let (_, notes, by) = &all["c-sandbox"]["P2-07"];
    assert_eq!(by, "applies_to");
    assert!(notes.starts_with("not applicable to this case"), "{notes}");
    assert_eq!(
        case(&report, "c-sandbox")["scores"]["spec_health_percent"],
        100.0
    );
    let blocked = &case(&report, "c-vip-sandbox")["checkpoints"][7];
    assert_eq!(blocked["blocked_by"], "ENV-01");
    assert!(case(&report, "c-vip-sandbox")["scores"]["spec_health_percent"].as_f64() < Some(100.0));
    let (_, notes, _) = &all["c-noevidence"]["P2-07"];
    assert!(notes.contains("needs the case's evidence file"), "{notes}");
    let (_, notes, _) = &all["c-ok"]["P2-02"];
    assert!(notes.contains("no event matches `each`"), "{notes}");

    // Failures name the event and the captured value.
    let (_, notes, _) = &all["c-sub-wrong"]["P2-03"];
    assert!(
        notes.contains("tool `cancel_order`") && notes.contains("(oid = \"O8\")"),
        "{notes}"
    );
    let (_, notes, _) = &all["c-noconfirm"]["P2-01"];
    assert!(
        notes.starts_with("2 of 2 `each` events have no `preceded_by` match"),
        "{notes}"
    );
    let (_, notes, _) = &all["c-refund-wrong"]["P2-05"];
    assert!(notes.contains("but by none with amount = 400"), "{notes}");
    let task = &case(&report, "c-noconfirm")["task"];
    assert_eq!(task["matcher"], "evidence+checkpoints");
    assert_eq!(
        task["detail"],
        "evidence `/resolved` is true; checkpoint P2-01 is FAIL"
    );
}

/// Copy airline-tau, let `mutate` edit one episode, and return the
/// checkpoints whose result changed: (case, checkpoint, before, after).
fn airline_diff(
    episode: &str,
    mutate: impl FnOnce(&mut Value),
) -> Vec<(String, String, String, String)> {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &repo().join("suites/airline-tau"),
        &dir.path().join("airline-tau"),
    );
    let before = results(&run_report(dir.path(), "airline-tau"));
    let path = dir
        .path()
        .join("airline-tau/traces")
        .join(format!("{episode}.json"));
    let mut trace: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    mutate(&mut trace);
    std::fs::write(&path, serde_json::to_string(&trace).unwrap()).unwrap();
    let after = results(&run_report(dir.path(), "airline-tau"));
    let mut changed = Vec::new();
    for (case_id, cps) in &before {
        for (cp, (result, _, _)) in cps {
            let now = &after[case_id][cp].0;
            if now != result {
                changed.push((case_id.clone(), cp.clone(), result.clone(), now.clone()));
            }
        }
    }
    changed
}

/// task-31 (reward 1): the user's "Yes, please proceed with the
/// cancellation" is removed; the agent cancels on "Let's cancel that instead".
/// A2-24 (issue 24: the agent asks, then the user says yes) fails with it:
/// both are the confirmation rule.
#[test]
fn airline_episode_without_its_confirmation_fails_only_a2_08() {
    let changed = airline_diff("task-31", |t| {
        let traj = t["traj"].as_array_mut().unwrap();
        let i = traj
            .iter()
            .position(|m| m["content"] == "Yes, please proceed with the cancellation. Thank you!")
            .unwrap();
        traj.remove(i);
    });
    assert_eq!(
        changed,
        [
            (
                "task-31".into(),
                "A2-08".into(),
                "PASS".into(),
                "FAIL".into()
            ),
            (
                "task-31".into(),
                "A2-24".into(),
                "PASS".into(),
                "FAIL".into()
            )
        ]
    );
}

/// task-26 (reward 1): the agent cancels N6F783, a reservation of the user
/// it never read, instead of NQNU5R, which it read. A2-15 (issue 24:
/// cancellation eligibility, shown by a read of that reservation) fails too.
#[test]
fn airline_episode_cancelling_an_unread_reservation_fails_only_a2_09() {
    let changed = airline_diff("task-26", |t| {
        let call = t["traj"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .flat_map(|m| m["tool_calls"].as_array_mut().into_iter().flatten())
            .find(|c| c["function"]["name"] == "cancel_reservation")
            .unwrap();
        call["function"]["arguments"] = Value::String(r#"{"reservation_id": "N6F783"}"#.into());
    });
    assert_eq!(
        changed,
        [
            (
                "task-26".into(),
                "A2-09".into(),
                "PASS".into(),
                "FAIL".into()
            ),
            (
                "task-26".into(),
                "A2-15".into(),
                "PASS".into(),
                "FAIL".into()
            )
        ]
    );
}

/// The bundled episodes: what each policy checkpoint finds (the numbers in
/// suites/airline-tau/README.md).
#[test]
fn airline_suite_results_match_its_readme() {
    let report = run_report(&repo().join("suites"), "airline-tau");
    let all = results(&report);
    let failing = |cp: &str| -> Vec<String> {
        all.iter()
            .filter(|(_, cps)| cps[cp].0 == "FAIL")
            .map(|(id, _)| id.clone())
            .collect()
    };
    assert_eq!(failing("A2-08"), ["task-13", "task-3"]);
    assert!(failing("A2-09").is_empty());
    assert!(failing("A2-10").is_empty());
    assert_eq!(failing("A2-12"), ["task-3"]);
    // Issue 24's rules (README, "Results").
    assert_eq!(failing("A2-16"), ["task-18", "task-4"]);
    assert_eq!(failing("A2-19"), ["task-13"]);
    assert_eq!(
        failing("A2-23"),
        ["task-13", "task-3", "task-33", "task-5", "task-7"]
    );
    assert_eq!(failing("A2-24"), ["task-13", "task-3"]);
    for quiet in [
        "A2-15", "A2-17", "A2-18", "A2-20", "A2-21", "A2-22", "A2-25",
    ] {
        assert!(failing(quiet).is_empty(), "{quiet}");
    }
    assert_eq!(report["aggregate"]["metrics"]["spec_health_percent"], 100.0);
    assert_eq!(
        report["aggregate"]["metrics"]["task_success"],
        report["aggregate"]["metrics"]["checkpoint:A1-01"],
        "task success is tau-bench's reward"
    );
}

/// The mistakes of issue 10, one error (or warning) each, at its own line.
#[test]
fn lint_reports_each_policy_mistake_once_at_its_line() {
    let out = bin()
        .args(["lint", "--suite"])
        .arg(fixture("suites/lint-policy"))
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(78), "{stderr}");
    let expected = [
        (
            "suite.yaml:17:25",
            "`/gold_bookz` in `active_when` of `ENV-01` resolves in no evidence file",
        ),
        (
            "suite.yaml:24:23",
            "refers to tool `book_reservatoin`, which is not in the `tools:` catalog (did you mean `book_reservation`?)",
        ),
        (
            "suite.yaml:30:23",
            "key `cabins` is not an argument (did you mean `cabin`?)",
        ),
        (
            "suite.yaml:36:11",
            "`tags` on checkpoint `P2-03` would not scope it",
        ),
        (
            "suite.yaml:37:23",
            "value \"basic_econom\" for `cabin` is not one of `basic_economy`, `economy`, `business`",
        ),
        (
            "suite.yaml:45:13",
            "capture `uid` in `P2-04` appears in one matcher only",
        ),
        (
            "suite.yaml:48:32",
            "`gates.metrics.task_success.min_effect` `5` can never be reached: `task_success` ranges over [0, 1]",
        ),
        (
            "suite.yaml:49:5",
            "unknown metric `complience_percent`: not a metric (did you mean `compliance_percent`?)",
        ),
    ];
    for (location, message) in expected {
        let line = stderr
            .lines()
            .position(|l| l.contains(message))
            .unwrap_or_else(|| panic!("missing `{message}` in:\n{stderr}"));
        assert!(
            stderr
                .lines()
                .nth(line + 1)
                .is_some_and(|l| l.contains(location)),
            "`{message}` is not at {location}:\n{stderr}"
        );
    }
    assert!(
        stderr.contains("nearest existing key: `/gold_actions`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("write `applies_to: {tags: [...]}`"),
        "{stderr}"
    );
    // The misspelt tool of P2-01 raises no second error on ENV-01, which affects P2-01.
    assert!(!stderr.contains("affects unknown checkpoint"), "{stderr}");
    assert!(
        stdout.contains("lint: 1 suite checked, 7 errors, 3 warnings"),
        "{stdout}"
    );
    assert!(stderr.contains("no gating metric can reach α"), "{stderr}");
}

#[test]
fn every_example_suite_lints_clean() {
    let out = bin()
        .current_dir(repo())
        .args(["lint", "--deny-warnings"])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("3 suites checked, 0 errors, 0 warnings"),
        "{stdout}"
    );
}

/// `scripts/tau-bench-airline.py` on the bundled 19 episodes gives a suite
/// that decides every episode as airline-tau does (only the case ids differ).
#[test]
fn tau_bench_script_builds_the_same_suite_from_the_public_file() {
    let dir = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("python3")
        .arg(repo().join("scripts/tau-bench-airline.py"))
        .arg("--source")
        .arg(fixture("traces/tau-bench/gpt-4o-airline.subset.json"))
        .arg("--out")
        .arg(dir.path().join("airline-19"))
        .status()
        .unwrap();
    assert!(status.success());
    let built = results(&run_report(dir.path(), "airline-19"));
    let bundled = results(&run_report(&repo().join("suites"), "airline-tau"));
    assert_eq!(built.len(), 19);
    for (id, cps) in &bundled {
        let same = &built[&format!("{id}.trial-0")];
        let pick = |m: &BTreeMap<String, (String, String, String)>| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.0.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(pick(same), pick(cps), "{id}");
    }
}
