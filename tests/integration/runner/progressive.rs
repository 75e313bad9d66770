//! Progressive tiers in run mode on the support-bot example agent: the smoke
//! tier's runs are reused by the full tier, and a confirmed critical smoke
//! regression stops before the full tier runs a single agent.

use std::path::Path;

use crate::common::{bin, copy_dir, repo};

use super::assert_code;

/// A copy of support-bot and the baselines whose agent command logs each
/// invocation to `invocations.log` before running the example agent.
/// `smoke` lists the case ids tagged `smoke`.
fn counted_suite(dir: &Path, smoke: &[&str]) {
    let suite = dir.join("suites/support-bot");
    copy_dir(&repo().join("suites/support-bot"), &suite);
    copy_dir(&repo().join("baselines"), &dir.join("baselines"));
    let yaml = std::fs::read_to_string(suite.join("suite.yaml")).unwrap();
    let original = r#"  command: ["python3", "agent/agent.py", "--input", "{input_file}", "--trace-out", "{trace_file}", "--workdir", "{workdir}"]"#;
    assert!(
        yaml.contains(original),
        "support-bot's agent.command changed"
    );
    let counted = r#"  command: ["sh", "-c", "echo \"$AGENTEVAL_CASE_ID\" >> \"$INVOCATIONS\"; exec python3 agent/agent.py --input \"$1\" --trace-out \"$2\" --workdir \"$3\"", "sh", "{input_file}", "{trace_file}", "{workdir}"]"#;
    let yaml = yaml
        .replace(original, counted)
        .replace("max_cases: 6", "max_cases: 10");
    std::fs::write(suite.join("suite.yaml"), yaml).unwrap();
    let cases = suite.join("cases.jsonl");
    let retagged: Vec<String> = std::fs::read_to_string(&cases)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            let tagged = smoke.contains(&v["id"].as_str().unwrap());
            v["tags"] = serde_json::json!(if tagged { vec!["smoke"] } else { vec![] });
            v.to_string()
        })
        .collect();
    std::fs::write(&cases, retagged.join("\n") + "\n").unwrap();
}

fn invocations(dir: &Path) -> Vec<String> {
    let mut lines: Vec<String> = std::fs::read_to_string(dir.join("invocations.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

fn compare(dir: &Path, variant: &str) -> (std::process::Output, serde_json::Value) {
    let json = dir.join("compare.json");
    let out = bin()
        .current_dir(dir)
        .env("AGENT_VARIANT", variant)
        .env("INVOCATIONS", dir.join("invocations.log"))
        .args([
            "compare",
            "--baseline",
            "main",
            "--suite",
            "support-bot",
            "--deterministic",
        ])
        .arg("--out")
        .arg(&json)
        .output()
        .unwrap();
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (out, report)
}

#[test]
fn a_critical_smoke_regression_stops_before_the_full_tier_runs_any_agent() {
    let dir = tempfile::tempdir().unwrap();
    // Eight cases whose compliance (critical) the regressed agent lowers: the five refunds
    // where it skips approval and three where it answers without a lookup. (1/2)^8 is below
    // the smoke tier's share of α (0.01), so the smoke tier stops the run.
    let smoke = [
        "sb-001", "sb-002", "sb-003", "sb-004", "sb-010", "sb-012", "sb-018", "sb-022",
    ];
    counted_suite(dir.path(), &smoke);
    let (out, report) = compare(dir.path(), "regressed");
    let (_, stderr) = assert_code(&out, 2);
    assert!(
        stderr.contains("run mode: smoke tier of `support-bot`: 8 cases, concurrency 4"),
        "{stderr}"
    );
    assert!(
        stderr.contains("smoke tier: a regression that fails the gate; skipping the full tier"),
        "{stderr}"
    );
    assert!(!stderr.contains("full tier of `support-bot`"), "{stderr}");
    // Exactly the smoke cases ran, once each.
    assert_eq!(invocations(dir.path()), smoke);
    let tiers = report["tiers"].as_array().unwrap();
    assert_eq!(tiers.len(), 1);
    assert_eq!(tiers[0]["tier"], "smoke");
    assert_eq!(tiers[0]["verdict"], "fail");
    assert_eq!(tiers[0]["stopped_early"], true);
    assert_eq!(tiers[0]["runs_saved"], 16);
    assert!(
        report["regressions"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("support-bot/compliance_percent"))
    );
}

#[test]
fn the_full_tier_reuses_the_smoke_tiers_runs() {
    let dir = tempfile::tempdir().unwrap();
    let smoke = ["sb-001", "sb-002", "sb-003"];
    counted_suite(dir.path(), &smoke);
    let (out, report) = compare(dir.path(), "baseline");
    let (_, stderr) = assert_code(&out, 0);
    assert!(
        stderr.contains("run mode: full tier of `support-bot`: 21 cases, concurrency 4 (3 reused from the smoke tier)"),
        "{stderr}"
    );
    // 24 cases, 24 agent runs: none ran twice.
    let ran = invocations(dir.path());
    assert_eq!(ran.len(), 24, "{ran:?}");
    let mut unique = ran.clone();
    unique.dedup();
    assert_eq!(unique, ran);
    let tiers = report["tiers"].as_array().unwrap();
    assert_eq!(
        tiers
            .iter()
            .map(|t| (t["tier"].as_str().unwrap(), t["cases"].as_u64().unwrap()))
            .collect::<Vec<_>>(),
        [("smoke", 3), ("full", 24)]
    );
    assert_eq!(report["verdict"], "pass");
}
