//! Trials (issue 20) through the binary: the replay layout of `trial-<i>/`
//! directories, the run report's trials and pass^k, per-case history in the
//! baseline, and the stratified test in `compare`.

use std::path::Path;

use crate::common::{bin, copy_dir, repo};

/// `DIR/traces/trial-<i>/` and `DIR/evidence/trial-<i>/` from support-bot's
/// recorded runs: the `kinds` name each trial's source (`ok` = the recorded
/// traces, `regressed` = the regressed variant's).
fn trials_layout(dir: &Path, kinds: &[&str]) {
    let suite = repo().join("suites/support-bot");
    for (i, kind) in kinds.iter().enumerate() {
        let (traces, evidence) = match *kind {
            "ok" => ("traces", "evidence"),
            _ => ("traces-regressed", "evidence-regressed"),
        };
        copy_dir(&suite.join(traces), &dir.join(format!("traces/trial-{i}")));
        copy_dir(
            &suite.join(evidence),
            &dir.join(format!("evidence/trial-{i}")),
        );
    }
}

/// `compare --suite support-bot --tier full --trials TRIALS` in `dir` against
/// `baselines/<baseline>`, the JSON report to `out`; `variant` sets the
/// scripted agent's `AGENT_VARIANT`.
#[expect(clippy::unwrap_used, reason = "test helpers fail loudly")]
fn compare_adaptive(
    dir: &Path,
    baseline: &str,
    trials: &str,
    baselines: &Path,
    out: &Path,
    variant: Option<&str>,
) -> std::process::Output {
    let mut cmd = bin();
    cmd.current_dir(dir)
        .args(["compare", "--baseline", baseline, "--suite", "support-bot"])
        .args(["--deterministic", "--tier", "full", "--trials", trials])
        .arg("--baselines-dir")
        .arg(baselines)
        .args(["--format", "json", "--out"])
        .arg(out);
    if let Some(v) = variant {
        cmd.env("AGENT_VARIANT", v);
    }
    cmd.output().unwrap()
}

#[expect(clippy::unwrap_used, reason = "test helpers fail loudly")]
fn json_of(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn replayed_trials_are_kept_with_pass_k_and_flaky_cases() {
    let tmp = tempfile::tempdir().unwrap();
    trials_layout(tmp.path(), &["ok", "regressed", "ok"]);
    let out = tmp.path().join("run.json");
    let status = bin()
        .current_dir(repo())
        .args([
            "run",
            "--suite",
            "support-bot",
            "--deterministic",
            "--traces",
        ])
        .arg(tmp.path().join("traces"))
        .arg("--evidence")
        .arg(tmp.path().join("evidence"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(status.status.code().is_some(), "{status:?}");
    let report = json_of(&out);
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 72, "24 cases × 3 trials");
    // Every case's trials in a row, numbered 0, 1, 2.
    let trials: Vec<u64> = cases
        .iter()
        .filter(|c| c["id"] == "sb-003")
        .map(|c| c["trial"].as_u64().unwrap_or(0))
        .collect();
    assert_eq!(trials, [0, 1, 2]);
    let t = &report["aggregate"]["trials"];
    assert_eq!(t["cases"], 24);
    assert_eq!(t["k"], 3);
    // P2-02 (never refund without approval) fails only in the regressed trial
    // of sb-003: pass^3 < pass@3 = 1 there, and the case is flaky on it.
    let hat = t["pass_hat_k"]["checkpoint:P2-02"].as_f64().unwrap();
    let at = t["pass_at_k"]["checkpoint:P2-02"].as_f64().unwrap();
    assert!(hat < at, "pass^k {hat} vs pass@k {at}");
    let flaky = t["flaky"]["sb-003"].as_array().unwrap();
    assert!(flaky.iter().any(|m| m == "checkpoint:P2-02"), "{flaky:?}");
    // A case's value is its mean over trials: compliance of sb-003 is the
    // mean of its three trials' compliance.
    let per_trial: Vec<f64> = cases
        .iter()
        .filter(|c| c["id"] == "sb-003")
        .map(|c| c["scores"]["compliance_percent"].as_f64().unwrap())
        .collect();
    assert!(per_trial[1] < per_trial[0], "{per_trial:?}");
}

#[test]
fn a_regression_in_every_head_trial_is_tested_against_the_baseline_trials() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("base");
    let head = tmp.path().join("head");
    trials_layout(&base, &["ok", "ok", "ok"]);
    trials_layout(&head, &["regressed", "regressed", "regressed"]);
    let baselines = tmp.path().join("baselines");
    let update = bin()
        .current_dir(repo())
        .args([
            "baseline",
            "update",
            "--name",
            "k3",
            "--suite",
            "support-bot",
        ])
        .args(["--deterministic", "--baselines-dir"])
        .arg(&baselines)
        .arg("--traces")
        .arg(base.join("traces"))
        .arg("--evidence")
        .arg(base.join("evidence"))
        .output()
        .unwrap();
    assert_eq!(update.status.code(), Some(0), "{update:?}");
    // The history line keeps each case's three trials.
    let history = std::fs::read_to_string(baselines.join("k3/support-bot.history.jsonl")).unwrap();
    let line: serde_json::Value = serde_json::from_str(history.lines().last().unwrap()).unwrap();
    let values = &line["case_values"]["sb-003"]["checkpoint:P2-02"];
    assert_eq!(values.as_array().unwrap().len(), 3, "{values}");

    let out = tmp.path().join("compare.json");
    let compare = bin()
        .current_dir(repo())
        .args(["compare", "--baseline", "k3", "--suite", "support-bot"])
        .args(["--deterministic", "--tier", "full", "--baselines-dir"])
        .arg(&baselines)
        .arg("--traces")
        .arg(head.join("traces"))
        .arg("--evidence")
        .arg(head.join("evidence"))
        .arg("--format")
        .arg("json")
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let report = json_of(&out);
    let metric = |name: &str| {
        report["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == name)
            .unwrap_or_else(|| panic!("no metric {name}"))
            .clone()
    };
    let p2 = metric("checkpoint:P2-02");
    assert_eq!(p2["test"], "exact_stratified", "{p2}");
    // Three trials on each side of every paired case where P2-02 was decided.
    let n = p2["n"].as_u64().unwrap();
    assert!(n >= 5, "{p2}");
    assert_eq!(p2["trials"]["head"].as_u64(), Some(3 * n));
    assert_eq!(p2["trials"]["base"].as_u64(), Some(3 * n));
    assert_eq!(p2["status"], "regression", "{p2}");
    assert_eq!(compare.status.code(), Some(2), "{compare:?}");
}

#[test]
fn trials_flag_is_refused_in_replay_and_out_of_range() {
    let replay = bin()
        .current_dir(repo())
        .args([
            "run",
            "--suite",
            "code-review",
            "--trials",
            "3",
            "--deterministic",
        ])
        .output()
        .unwrap();
    assert_eq!(replay.status.code(), Some(78), "{replay:?}");
    assert!(String::from_utf8_lossy(&replay.stderr).contains("`--trials`"));
    let range = bin()
        .current_dir(repo())
        .args(["run", "--suite", "support-bot", "--trials", "0"])
        .output()
        .unwrap();
    assert_eq!(range.status.code(), Some(64), "{range:?}");
}

#[test]
fn adaptive_bounds_are_checked() {
    for (bounds, says) in [
        ("3:1", "`min` (3) is above `max` (1)"),
        ("0:3", "give 1 to 100 runs per case"),
        ("1:101", "give 1 to 100 runs per case"),
        ("1-3", "is not a number of trials"),
    ] {
        let out = bin()
            .current_dir(repo())
            .args(["run", "--suite", "support-bot", "--trials", bounds])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(64), "{bounds}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{bounds}: {stderr}");
    }
}

/// Adaptive confirmation in run mode (`--trials 1:3`): the scripted flaky
/// agent with its seeded regression (small refunds skip the approval in
/// about half the trials) runs every case once; only the cases not settled
/// (task success or a checkpoint that can fail the gate differs from their
/// three baseline trials, or those are mixed) are re-run, and the driving
/// checkpoint is tested conditionally on those decisions while the other
/// metrics use the first trial of every case. 34 runs instead of 72 (38
/// when every checkpoint drove re-runs) reach the verdict of three
/// trials against three.
#[test]
fn adaptive_trials_rerun_only_the_cases_not_settled_and_catch_the_regression() {
    let tmp = tempfile::tempdir().unwrap();
    let baselines = tmp.path().join("baselines");
    let update = bin()
        .current_dir(repo())
        .args([
            "baseline",
            "update",
            "--name",
            "flaky",
            "--suite",
            "support-bot",
        ])
        .args(["--deterministic", "--baselines-dir"])
        .arg(&baselines)
        .args([
            "--traces",
            "suites/support-bot/traces-flaky",
            "--evidence",
            "suites/support-bot/evidence-flaky",
        ])
        .output()
        .unwrap();
    assert_eq!(update.status.code(), Some(0), "{update:?}");
    let out = tmp.path().join("compare.json");
    let run = compare_adaptive(
        &repo(),
        "flaky",
        "1:3",
        &baselines,
        &out,
        Some("flaky-regressed"),
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr
            .contains("adaptive trials of `support-bot`: 5 cases of 24 not settled after 1 trial"),
        "{stderr}"
    );
    assert!(
        stderr.contains("(trial 3): 5 cases") && !stderr.contains("(trial 4)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("24 cases × 1–3 trials evaluated"),
        "{stderr}"
    );
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    let report = json_of(&out);
    let metric = |name: &str| {
        report["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == name)
            .unwrap()
            .clone()
    };
    // The approval checkpoint drove re-runs: its 5 applicable cases have 1 or 3 trials,
    // and the conditional test confirms the regression.
    let p2 = metric("checkpoint:P2-02");
    assert_eq!(p2["n"], 5, "{p2}");
    assert_eq!(p2["trials"]["head"], 13, "{p2}");
    assert_eq!(p2["trials"]["base"], 15, "{p2}");
    assert_eq!(p2["test"], "exact_stratified", "{p2}");
    assert_eq!(p2["status"], "regression", "{p2}");
    assert!(p2["p_value"].as_f64().unwrap() < 0.005, "{p2}");
    // Metrics that do not drive re-runs are tested on the first trial of every case.
    let compliance = metric("compliance_percent");
    assert_eq!(compliance["trials"]["head"], 24, "{compliance}");
    assert_eq!(compliance["trials"]["base"], 72, "{compliance}");
}

/// Adaptive confirmation when a re-run gives a checkpoint no value: a copying
/// agent replays support-bot's regressed trace as trial 0 and, as trial 1, a
/// conversation without a refund, so the refund-approval checkpoint P2-02,
/// which broke in trial 0 and asks for the re-run, does not apply in it.
/// The case is tested on its first stage (the re-run decision weighted in);
/// this stopped every adaptive compare on the real tau-bench episodes with
/// exit 65 ("1 head trials do not fit a first stage of 1 and a re-run").
#[test]
fn an_adaptive_rerun_in_which_a_checkpoint_does_not_apply_is_tested_on_the_first_stage() {
    let tmp = tempfile::tempdir().unwrap();
    let suite_dir = tmp.path().join("suites/support-bot");
    copy_dir(&repo().join("suites/support-bot"), &suite_dir);
    let yaml = std::fs::read_to_string(suite_dir.join("suite.yaml")).unwrap();
    let agent = r#"agent:
  command: ["sh", "-c", "if [ \"$AGENTEVAL_TRIAL\" = 0 ]; then cp \"traces-regressed/$AGENTEVAL_CASE_ID.json\" \"$AGENTEVAL_TRACE_FILE\" && cp \"evidence-regressed/$AGENTEVAL_CASE_ID.json\" \"$AGENTEVAL_EVIDENCE_FILE\"; else cp traces/sb-001.json \"$AGENTEVAL_TRACE_FILE\" && cp evidence/sb-001.json \"$AGENTEVAL_EVIDENCE_FILE\"; fi"]
  timeout_s: 30
"#;
    let start = yaml.find("\nagent:").unwrap() + 1;
    let end = start + yaml[start..].find("\n\n").unwrap() + 1;
    std::fs::write(
        suite_dir.join("suite.yaml"),
        format!("{}{agent}{}", &yaml[..start], &yaml[end..]),
    )
    .unwrap();
    trials_layout(tmp.path(), &["ok", "ok"]);
    let baselines = tmp.path().join("baselines");
    let update = bin()
        .current_dir(tmp.path())
        .args([
            "baseline",
            "update",
            "--suite",
            "support-bot",
            "--deterministic",
        ])
        .args([
            "--traces",
            "traces",
            "--evidence",
            "evidence",
            "--baselines-dir",
        ])
        .arg(&baselines)
        .output()
        .unwrap();
    assert_eq!(update.status.code(), Some(0), "{update:?}");
    let out = tmp.path().join("compare.json");
    let run = compare_adaptive(tmp.path(), "main", "1:2", &baselines, &out, None);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!stderr.contains("do not fit a first stage"), "{stderr}");
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    let report = json_of(&out);
    let p2 = report["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "checkpoint:P2-02")
        .unwrap()
        .clone();
    // Five refund cases, each with its first-stage value only (the re-run had no refund).
    assert_eq!(p2["n"], 5, "{p2}");
    assert_eq!(p2["trials"]["head"], 5, "{p2}");
    assert_eq!(p2["trials"]["base"], 10, "{p2}");
    assert_eq!(p2["test"], "exact_stratified", "{p2}");
}

/// `run --suite support-bot --deterministic --quiet ARGS… --out OUT` from the repository
/// root; exits 0.
#[expect(clippy::unwrap_used, reason = "test helpers fail loudly")]
fn run_support_bot(args: &[&std::ffi::OsStr], out: &Path) {
    let o = bin()
        .current_dir(repo())
        .args([
            "run",
            "--suite",
            "support-bot",
            "--deterministic",
            "--quiet",
        ])
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
}

/// A kept run of several trials replays as it ran: run mode writes trial `t` to
/// `traces/trial-<t>/` and `evidence/trial-<t>/` under `--artifacts DIR/<suite>/`, the
/// layout replay reads trials from (each trial overwrote the last in `traces/` before, so a
/// replay of the kept run saw one trial: the sharded workflow compares such a replay).
#[test]
fn a_kept_run_of_several_trials_replays_every_trial() {
    let tmp = tempfile::tempdir().unwrap();
    let artifacts = tmp.path().join("artifacts");
    let ran = tmp.path().join("run.json");
    run_support_bot(
        &[
            "--trials".as_ref(),
            "3".as_ref(),
            "--artifacts".as_ref(),
            artifacts.as_os_str(),
        ],
        &ran,
    );
    let kept = artifacts.join("support-bot");
    for t in 0..3 {
        let traces = kept.join(format!("traces/trial-{t}"));
        assert_eq!(
            std::fs::read_dir(&traces).unwrap().count(),
            24,
            "{}",
            traces.display()
        );
        assert!(kept.join(format!("evidence/trial-{t}")).is_dir());
    }
    let replayed = tmp.path().join("replay.json");
    let (traces, evidence) = (kept.join("traces"), kept.join("evidence"));
    run_support_bot(
        &[
            "--traces".as_ref(),
            traces.as_os_str(),
            "--evidence".as_ref(),
            evidence.as_os_str(),
        ],
        &replayed,
    );
    let (mut a, mut b) = (json_of(&ran), json_of(&replayed));
    assert_eq!(
        (a["mode"].as_str(), b["mode"].as_str()),
        (Some("run"), Some("replay"))
    );
    for r in [&mut a, &mut b] {
        for c in r["cases"].as_array_mut().unwrap() {
            c.as_object_mut().unwrap().remove("trace");
        }
    }
    assert_eq!(
        b["cases"].as_array().unwrap().len(),
        72,
        "24 cases × 3 trials"
    );
    assert_eq!(a["cases"], b["cases"]);
    assert_eq!(a["aggregate"], b["aggregate"]);
}
