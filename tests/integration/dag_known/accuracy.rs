//! `scripts/who-and-when-accuracy.py` (issue 14) on the bundled Who&When
//! samples: what it prints must equal a direct computation from the same
//! files through the library (the labels from the trace metadata, the
//! predictions from `evaluate_steps`), so neither the script's report
//! reading, its step indexing nor its baseline arithmetic can drift.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use agenteval_gate::eval::{RulesScorer, StepContext, StepSettings, ToolCatalog, evaluate_steps};
use agenteval_gate::trace::SpanKind;
use agenteval_gate::trace::read_trace;
use serde_json::Value;

#[derive(Debug, Default, PartialEq)]
struct Half {
    episodes: u64,
    agent_correct: u64,
    step_correct: u64,
    no_root_cause: u64,
    agent_named: u64,
    random_agent: f64,
    random_step: f64,
}

fn direct(dir: &Path) -> BTreeMap<String, Half> {
    let catalog = ToolCatalog::empty();
    let settings = StepSettings::default();
    let mut halves: BTreeMap<String, Half> = BTreeMap::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    for path in files {
        let stem = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let half = stem.split('_').next().unwrap().to_owned();
        let trace = read_trace(&path).unwrap();
        let label_agent = trace.metadata["mistake_agent"].as_str().unwrap().to_owned();
        let label_span = trace.metadata["mistake_span"].as_str().unwrap().to_owned();
        let messages: Vec<_> = trace
            .spans
            .iter()
            .filter(|s| s.kind != SpanKind::Agent)
            .collect();
        let agents: BTreeSet<&str> = messages.iter().filter_map(|s| s.agent.as_deref()).collect();
        let eval = evaluate_steps(&trace, &StepContext::new(&catalog, &settings, &RulesScorer));
        let rc = eval.root_cause.as_ref();
        for h in [half.as_str(), "total"] {
            let e = halves.entry(h.to_owned()).or_default();
            e.episodes += 1;
            e.agent_correct +=
                u64::from(rc.and_then(|r| r.agent.as_deref()) == Some(label_agent.as_str()));
            e.step_correct +=
                u64::from(rc.and_then(|r| r.span_id.as_deref()) == Some(label_span.as_str()));
            e.no_root_cause += u64::from(rc.is_none());
            e.agent_named += u64::from(rc.is_some_and(|r| r.agent.is_some()));
            e.random_agent += 1.0 / agents.len() as f64;
            e.random_step += 1.0 / messages.len() as f64;
        }
    }
    for h in halves.values_mut() {
        h.random_agent /= h.episodes as f64;
        h.random_step /= h.episodes as f64;
    }
    halves
}

#[test]
fn the_accuracy_script_agrees_with_a_direct_computation() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let samples = repo.join("tests/fixtures/traces/who-and-when");
    let out_dir = tempfile::tempdir().unwrap();
    let json_out = out_dir.path().join("accuracy.json");
    let out = Command::new("python3")
        .arg(repo.join("scripts/who-and-when-accuracy.py"))
        .arg(&samples)
        .arg("--json")
        .arg(&json_out)
        .env("AGENTEVAL_GATE_BIN", env!("CARGO_BIN_EXE_agenteval-gate"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Value = serde_json::from_slice(&std::fs::read(&json_out).unwrap()).unwrap();

    let want = direct(&samples);
    assert_eq!(want["total"].episodes, 12);
    for (name, w) in &want {
        let got = &printed["summary"][name];
        let count = |k: &str| got[k].as_u64().unwrap();
        assert_eq!(
            (
                count("episodes"),
                count("agent_correct"),
                count("step_correct"),
                count("no_root_cause"),
                count("agent_named")
            ),
            (
                w.episodes,
                w.agent_correct,
                w.step_correct,
                w.no_root_cause,
                w.agent_named
            ),
            "{name}: {got}"
        );
        for (k, v) in [
            ("random_agent", w.random_agent),
            ("random_step", w.random_step),
        ] {
            let g = got[k].as_f64().unwrap();
            assert!((g - v).abs() < 1e-12, "{name} {k}: printed {g}, direct {v}");
        }
        // The table on stdout says the same, rounded.
        let line = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name.as_str()))
            .unwrap_or_else(|| panic!("no `{name}` row in:\n{stdout}"));
        let n = w.episodes;
        let pct = |k: u64| format!("{k}/{n}");
        assert!(
            line.contains(&pct(w.agent_correct)) && line.contains(&pct(w.step_correct)),
            "{line}"
        );
        assert!(
            line.contains(&format!("{:.1}%", 100.0 * w.random_step)),
            "{line}"
        );
        // …then the episodes without a root cause, the coverage (agent
        // named) and the precision where named.
        let precision = if w.agent_named == 0 {
            0.0
        } else {
            100.0 * w.agent_correct as f64 / w.agent_named as f64
        };
        let tail = format!(
            " {}  {:>4}/{n:<4} {:>5.1}%  {:>4}/{:<4} {precision:>5.1}%",
            w.no_root_cause,
            w.agent_named,
            100.0 * w.agent_named as f64 / n as f64,
            w.agent_correct,
            w.agent_named
        );
        assert!(line.trim_end().ends_with(tail.trim_end()), "{line}\n{tail}");
    }
    // The halves partition the total.
    let halves: u64 = ["algorithm-generated", "hand-crafted"]
        .iter()
        .map(|h| want[*h].episodes)
        .sum();
    assert_eq!(halves, want["total"].episodes);
    // Each episode's prediction is listed with its label.
    assert_eq!(printed["episodes"].as_array().unwrap().len(), 12);
}
