//! Recurring issues (issue 14 item 3) through the binary, on the bundled
//! support-bot example: the regressed recording against the committed
//! baseline, the unchanged recording, and a baseline from before insights.

use crate::common::{bin, copy_dir, outputs, regressed_compare_args, repo};

#[expect(clippy::unwrap_used, reason = "test helpers fail loudly")]
fn regressed_compare(baselines: Option<&std::path::Path>) -> (String, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("compare.json");
    let mut cmd = bin();
    cmd.current_dir(repo())
        .args(regressed_compare_args(&["--format", "markdown", "--out"]));
    cmd.arg(&json);
    if let Some(b) = baselines {
        cmd.arg("--baselines-dir").arg(b);
    }
    let out = cmd.output().unwrap();
    let (_, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let md = String::from_utf8(out.stdout).unwrap();
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (md, report)
}

#[expect(clippy::unwrap_used, reason = "test helpers fail loudly")]
fn nodes(list: &serde_json::Value) -> Vec<(String, u64)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let node = &c["group"]["node"];
            let name = format!(
                "{} {}",
                node["step_type"]
                    .as_str()
                    .unwrap_or(node["kind"].as_str().unwrap()),
                node["name"].as_str().unwrap_or("")
            );
            (name.trim().to_owned(), c["head_cases"].as_u64().unwrap())
        })
        .collect()
}

#[test]
fn the_regressed_agent_brings_new_recurring_issues_that_lead_the_comment() {
    let (md, report) = regressed_compare(None);
    let s = &report["insights"][0];
    assert_eq!(s["suite"], "support-bot");
    assert_eq!(s["status"], "compared");
    let new = nodes(&s["new"]);
    // The unapproved refund: the tier-2 checkpoint and the PARAMGEN without `approval_id`.
    assert_eq!(new[0], ("checkpoint P2-02".to_owned(), 5), "{new:?}");
    assert_eq!(new[1], ("PARAMGEN issue_refund".to_owned(), 4), "{new:?}");
    let grew = nodes(&s["grew"]);
    assert!(
        grew.contains(&("checkpoint P2-01".to_owned(), 8)),
        "{grew:?}"
    );
    for g in s["grew"].as_array().unwrap() {
        let (b, h) = (
            g["base_cases"].as_u64().unwrap(),
            g["head_cases"].as_u64().unwrap(),
        );
        assert!(h >= b + 2, "{g}");
    }
    // New issues cite where they happened: case ids and span ids.
    let first = &s["new"][0]["group"]["examples"][0];
    assert_eq!(first["case"], "sb-003");
    assert_eq!(first["spans"][0], "33d86397eb11333a");

    // The PR comment names the new issues in one line; the tables are the
    // job summary's (pinned by the renderer's summary snapshot).
    assert!(
        md.contains("**Recurring issues** in `support-bot`: 4 new since the baseline (`checkpoint P2-02` in 5 cases, `PARAMGEN issue_refund @support_agent` in 4 cases), 2 grew, 3 gone."),
        "{md}"
    );
}

#[test]
fn the_unchanged_recording_has_nothing_new_grown_or_gone() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("compare.json");
    let out = bin()
        .current_dir(repo())
        .args([
            "compare",
            "--baseline",
            "main",
            "--suite",
            "support-bot",
            "--traces",
            "suites/support-bot/traces",
            "--evidence",
            "suites/support-bot/evidence",
            "--deterministic",
            "--out",
        ])
        .arg(&json)
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let s = &report["insights"][0];
    assert_eq!(s["status"], "compared");
    for k in ["new", "grew", "gone"] {
        assert_eq!(s[k].as_array().unwrap().len(), 0, "{k}: {}", s[k]);
    }
    assert!(
        !s["top"].as_array().unwrap().is_empty(),
        "the run has issues to list"
    );
    assert!(stdout.contains("recurring issues support-bot: 0 new, 0 grew, 0 gone"));
}

#[test]
fn a_baseline_from_before_insights_calls_nothing_new() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("baselines"), dir.path());
    let path = dir.path().join("main/support-bot.json");
    let mut base: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let stored = base["report"]["aggregate"].as_object_mut().unwrap();
    assert!(
        stored.remove("insights").is_some(),
        "the baseline carries insights"
    );
    std::fs::write(&path, serde_json::to_string(&base).unwrap()).unwrap();
    let (md, report) = regressed_compare(Some(dir.path()));
    let s = &report["insights"][0];
    assert_eq!(s["status"], "baseline_without_insights");
    assert_eq!(s["new"].as_array().unwrap().len(), 0);
    assert!(
        md.contains("the baseline was written before recurring issues were recorded"),
        "{md}"
    );
}
