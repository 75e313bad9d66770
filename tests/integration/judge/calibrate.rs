//! `calibrate`: the agreement statistics against published implementations
//! (scikit-learn's Cohen's κ and confusion matrix, the `krippendorff`
//! package's α; values in `tests/fixtures/calibration/reference.json`,
//! written by `scripts/calibration_reference.py`), and the command on the
//! support-bot golden set with the committed stand-in judge cache.

use agenteval_gate::judged::calibrate::{Scale, agreement};
use serde_json::Value;

use crate::common::{bin, close, fixture, outputs, repo};

#[test]
fn agreement_kappa_alpha_and_confusion_match_the_reference_implementations() {
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("calibration/reference.json")).unwrap(),
    )
    .unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 7);
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let (scale, lo) = match c["scale"].as_str().unwrap() {
            "verdicts" => (Scale::verdicts(), 0),
            "1-5" => (Scale::integers("1-5", 1, 5), 1),
            "0-3" => (Scale::integers("0-3", 0, 3), 0),
            other => panic!("{other}"),
        };
        assert_eq!(scale.ordinal, c["ordinal"].as_bool().unwrap(), "{name}");
        let idx = |v: &Value| usize::try_from(v.as_i64().unwrap() - lo).unwrap();
        let pairs: Vec<(usize, usize)> = c["human"]
            .as_array()
            .unwrap()
            .iter()
            .zip(c["judge"].as_array().unwrap())
            .map(|(h, j)| (idx(h), idx(j)))
            .collect();
        let a = agreement(&pairs, &scale).unwrap();
        assert!(
            close(a.agreement, c["agreement"].as_f64().unwrap()),
            "{name}: agreement {}",
            a.agreement
        );
        let kappa = a.cohen_kappa.unwrap();
        assert!(
            close(kappa, c["cohen_kappa"].as_f64().unwrap()),
            "{name}: κ {kappa} vs {}",
            c["cohen_kappa"]
        );
        let alpha = a.krippendorff_alpha.unwrap();
        assert!(
            close(alpha, c["krippendorff_alpha"].as_f64().unwrap()),
            "{name}: α {alpha} vs {}",
            c["krippendorff_alpha"]
        );
        let confusion: Vec<Vec<usize>> = serde_json::from_value(c["confusion"].clone()).unwrap();
        assert_eq!(a.confusion, confusion, "{name}");
    }
}

#[test]
fn calibrate_pairs_the_golden_set_with_the_judge_and_warns_below_the_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("calibration.json");
    let out = bin()
        .current_dir(repo())
        .args([
            "calibrate",
            "--suite",
            "support-bot",
            "--judge",
            "replay",
            "--format",
            "json",
            "--out",
        ])
        .arg(&json)
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let r: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        r,
        serde_json::from_str::<Value>(&std::fs::read_to_string(&json).unwrap()).unwrap()
    );
    assert_eq!(r["judge"], "openai/agenteval-stand-in-rules (replay)");
    assert!(
        r["source"]
            .as_str()
            .unwrap()
            .starts_with("ILLUSTRATION ONLY")
    );
    assert_eq!(r["labels"], 30);
    let cps = &r["checkpoints"]["stats"];
    assert_eq!(cps["n"], 24);
    let confusion: Vec<Vec<u64>> = serde_json::from_value(cps["confusion"].clone()).unwrap();
    assert_eq!(confusion.iter().flatten().sum::<u64>(), 24);
    let agree: u64 = (0..3).map(|i| confusion[i][i]).sum();
    assert!(close(
        cps["agreement"].as_f64().unwrap(),
        agree as f64 / 24.0
    ));
    // The stand-in's keyword rules agree with these labels less than κ 0.6 asks.
    assert!(cps["cohen_kappa"].as_f64().unwrap() < 0.6);
    assert_eq!(r["checkpoints"]["below_threshold"], true);
    assert!(
        stderr.contains("warning: checkpoint verdicts (FAIL/PARTIAL/PASS): Cohen's κ"),
        "{stderr}"
    );
    // The SYNTH label of sb-010 is not paired: the rules settled that step.
    assert_eq!(r["unpaired"].as_array().unwrap().len(), 1);
    assert_eq!(r["unpaired"][0]["case"], "sb-010");
    assert_eq!(r["steps"]["stats"]["n"], 5);
}

#[test]
fn bad_golden_sets_are_located_errors_and_calibrate_needs_a_judge() {
    let dir = tempfile::tempdir().unwrap();
    for (body, code, needle) in [
        (
            "source: x\nlabels:\n  - {case: nope, checkpoint: P3-01, label: PASS}\n",
            65,
            "golden.yaml:3",
        ),
        (
            "source: x\nlabels:\n  - {case: sb-001, checkpoint: P2-01, label: PASS}\n",
            65,
            "is not tier 3",
        ),
        (
            "source: x\nlabels:\n  - {case: sb-001, checkpoint: P3-01, label: YES}\n",
            65,
            "is not PASS, PARTIAL or FAIL",
        ),
        (
            "source: x\nlabels:\n  - {case: sb-001, step: s8, label: 7}\n",
            65,
            "not a whole number from 1 to 5",
        ),
        (
            "source: x\nlabels:\n  - {case: sb-001, step: s99, label: 3}\n",
            65,
            "step `s99` is not in the DAG of case `sb-001`",
        ),
        (
            "source: x\nlabels:\n  - {case: sb-001, step: s4, label: 3}\n",
            65,
            "the rules score it, never the judge",
        ),
        (
            "source: x\nlabels:\n  - {case: sb-001, gpa: vibes, label: 2}\n",
            65,
            "`vibes` is not a GPA dimension",
        ),
        (
            "source: x\nlabels:\n  - {case: sb-001, gpa: goal_fulfillment, label: 4}\n",
            65,
            "is not a whole number from 0 to 3",
        ),
        (
            "source: x\nlabels:\n  - {case: sb-001, gpa: goal_fulfillment, step: s8, label: 2}\n",
            65,
            "one of `checkpoint`, `step` or `gpa`",
        ),
        ("labels: []\n", 65, "source"),
    ] {
        let golden = dir.path().join("golden.yaml");
        std::fs::write(&golden, body).unwrap();
        let out = bin()
            .current_dir(repo())
            .args([
                "calibrate",
                "--suite",
                "support-bot",
                "--judge",
                "replay",
                "--golden",
            ])
            .arg(&golden)
            .output()
            .unwrap();
        let (_, stderr) = outputs(&out);
        assert_eq!(out.status.code(), Some(code), "{body}: {stderr}");
        assert!(stderr.contains(needle), "{body}: {stderr}");
    }
    let out = bin()
        .current_dir(repo())
        .args(["calibrate", "--suite", "support-bot"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
    assert!(outputs(&out).1.contains("`calibrate` needs a judge"));
}
