//! The tau-bench airline subset: how many episodes form a DAG, and how well
//! the rules-based workflow score Q separates reward 1 from reward 0 (AUC).
//! Run with `--nocapture` to see the numbers.

use std::collections::BTreeMap;
use std::path::PathBuf;

use agenteval_gate::eval::steps::{
    RulesScorer, StepContext, StepSettings, ToolCatalog, evaluate_steps,
};
use agenteval_gate::report::model::DagStatus;
use agenteval_gate::trace::model::{
    Message, Span, SpanKind, ToolCall, ToolExecution, Trace, TraceFormat,
};
use serde_json::Value;

/// The subset file: the repository fixture once the trace adapters land,
/// else the shared copy.
fn subset_path() -> PathBuf {
    let fixture = super::super::common::fixture("traces/tau-bench/gpt-4o-airline.subset.json");
    if fixture.exists() {
        fixture
    } else {
        PathBuf::from("/work/shared/traces/tau-bench/gpt-4o-airline.subset.json")
    }
}

/// Stand-in for the tau-bench adapter (owned by the trace work stream):
/// one span per message, in array order; assistant messages are model calls
/// with their `tool_calls`, tool messages are executions, user turns are `User`.
fn episode_trace(episode: &Value) -> Trace {
    let mut spans = Vec::new();
    for (i, m) in episode["traj"].as_array().into_iter().flatten().enumerate() {
        let content = m["content"].as_str().unwrap_or("").to_owned();
        let span = match m["role"].as_str() {
            Some("assistant") => {
                let mut s = Span::new(format!("m{i}"), "assistant", SpanKind::Llm, i);
                let tool_calls = m["tool_calls"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|c| ToolCall {
                        id: c["id"].as_str().map(str::to_owned),
                        name: c["function"]["name"].as_str().unwrap_or("").to_owned(),
                        arguments: c["function"]["arguments"]
                            .as_str()
                            .and_then(|a| serde_json::from_str(a).ok())
                            .unwrap_or(Value::Null),
                    })
                    .collect();
                s.output_messages.push(Message {
                    role: "assistant".into(),
                    content,
                    tool_calls,
                    ..Message::default()
                });
                s
            }
            Some("tool") => {
                let name = m["name"].as_str().unwrap_or("").to_owned();
                let mut s = Span::new(format!("m{i}"), name.clone(), SpanKind::Tool, i);
                s.tool = Some(ToolExecution {
                    name,
                    call_id: m["tool_call_id"].as_str().map(str::to_owned),
                    arguments: None,
                    result: Some(Value::String(content)),
                });
                s
            }
            Some("user") => {
                let mut s = Span::new(format!("m{i}"), "user", SpanKind::User, i);
                s.input = Some(Value::String(content));
                s
            }
            _ => Span::new(format!("m{i}"), "system", SpanKind::Other, i),
        };
        spans.push(span);
    }
    Trace {
        id: format!("task-{}", episode["task_id"]),
        format: TraceFormat::ChatMessages,
        spans,
        final_output: None,
        metadata: BTreeMap::new(),
        warnings: Vec::new(),
    }
    .finish()
}

/// Mann–Whitney AUC of `score` for positives over negatives (ties count half).
fn auc(positives: &[f64], negatives: &[f64]) -> Option<f64> {
    if positives.is_empty() || negatives.is_empty() {
        return None;
    }
    let mut wins = 0.0;
    for p in positives {
        for n in negatives {
            wins += match p.total_cmp(n) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Less => 0.0,
            };
        }
    }
    Some(wins / (positives.len() * negatives.len()) as f64)
}

#[test]
fn auc_counts_ties_as_half() {
    assert_eq!(
        auc(&[3.0, 2.0], &[1.0, 2.0]),
        Some((1.0 + 1.0 + 1.0 + 0.5) / 4.0)
    );
    assert_eq!(auc(&[1.0], &[]), None);
}

#[test]
fn tau_bench_dag_status_and_q_auc() {
    let text = std::fs::read_to_string(subset_path()).unwrap();
    let episodes: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(episodes.len(), 19);

    let catalog = ToolCatalog::empty();
    let settings = StepSettings::default();
    let ctx = StepContext::new(&catalog, &settings, &RulesScorer);
    let mut status: BTreeMap<String, usize> = BTreeMap::new();
    let (mut pos, mut neg, mut undefined) = (Vec::new(), Vec::new(), 0);
    for episode in &episodes {
        let trace = episode_trace(episode);
        let eval = evaluate_steps(&trace, &ctx);
        let name = serde_json::to_value(eval.dag.status)
            .unwrap()
            .as_str()
            .unwrap()
            .to_owned();
        *status.entry(name).or_default() += 1;
        let reward = episode["reward"].as_f64().unwrap();
        let tool_messages = episode["traj"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .count();
        // Every tool message became exactly one EXEC: nothing was dropped or invented.
        assert_eq!(
            eval.graph
                .nodes
                .iter()
                .filter(|n| n.step_type == agenteval_gate::spec::model::StepType::Exec)
                .count(),
            tool_messages
        );
        assert_ne!(
            eval.dag.status,
            DagStatus::FlatFallback,
            "task {}: {:?}",
            episode["task_id"],
            eval.warnings
        );
        eprintln!(
            "task {:>2} reward {reward} status {:?} nodes {:>3} Q {:?} failed_calls {}",
            episode["task_id"],
            eval.dag.status,
            eval.dag.nodes,
            eval.workflow_quality,
            eval.tool_use.failed_calls
        );
        match eval.workflow_quality {
            Some(q) if reward > 0.5 => pos.push(q),
            Some(q) => neg.push(q),
            None => undefined += 1,
        }
    }
    let auc = auc(&pos, &neg);
    eprintln!(
        "tau-bench subset: DAG status {status:?}; Q defined for {} of 19 ({} reward 1, {} reward 0); AUC {auc:?}",
        pos.len() + neg.len(),
        pos.len(),
        neg.len()
    );
    assert_eq!(status.values().sum::<usize>(), 19);
    assert_eq!(pos.len() + neg.len() + undefined, 19);
    assert!(auc.is_some_and(|a| (0.0..=1.0).contains(&a)));
}
