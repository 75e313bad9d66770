//! Collect the critiques of a run and group them (deterministic: the same
//! cases give the same groups, ids and order, whatever order the cases were
//! evaluated in).
//!
//! A critique is one of:
//! - a failed step: its taxonomy label `l1/l2/l3` (or `unlabelled`), its node
//!   (tool steps: step type × tool × agent; model steps: step type × agent)
//!   and its notes (the rules' note or the judge's rationale);
//! - a checkpoint whose result is FAIL or PARTIAL: its severity, the
//!   checkpoint, its notes, and the spans its verdict cites;
//! - a trace-judge dimension scored 0 or 1 (out of 3): the judge, the
//!   dimension, its rationale and cited spans.
//!
//! Critiques group on (source, label, node, normalised key); the system-wide
//! view groups the same (source, label, key) over nodes. The key is the
//! message, except where a judge wrote it: then it is what the gate knows for
//! itself (the verdict and matched criterion of a tier-3 checkpoint, "judged
//! below the threshold" for a step, "low score" for a trace-judge dimension),
//! so an issue's id never depends on the judge's wording or identity; the
//! judge's prose stays the example message.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use regex::Regex;

use super::normalize::normalize_message;
use crate::model::insights::{
    Insights, IssueExample, IssueGroup, IssueNode, IssueSource, NodeKind, SystemIssue,
};
use crate::model::run::{CaseReport, CheckpointState};
use crate::spec::model::StepType;

/// A trace-judge score at or below this (of 3) is a critique.
pub(crate) const LOW_TRACE_SCORE: f64 = 1.0;
/// Examples kept per group.
pub(crate) const MAX_EXAMPLES: usize = 3;
/// Characters kept of an example message.
const EXAMPLE_CHARS: usize = 300;

/// One critique of one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Critique {
    pub source: IssueSource,
    pub label: String,
    pub node: IssueNode,
    pub message: String,
    /// What the critique groups on before normalising: the message, or for judged
    /// critiques the gate's own words (see the module docs).
    pub key: String,
    pub case: String,
    pub step: Option<String>,
    pub spans: Vec<String>,
}

static SPAN_IN_NOTES: LazyLock<Regex> = LazyLock::new(|| {
    #[expect(clippy::expect_used, reason = "a constant pattern")]
    Regex::new(r"\(span ([^\s()]+)\)").expect("valid regex")
});

/// Every critique of `case`, in report order.
pub(crate) fn critiques_of_case(case: &CaseReport) -> Vec<Critique> {
    let mut out = Vec::new();
    for step in case.steps.iter().filter(|s| s.failed) {
        let tool_step = matches!(
            step.step_type,
            StepType::ToolSel | StepType::ParamGen | StepType::Exec
        );
        let message = if step.notes.trim().is_empty() {
            match step.score {
                Some(s) => format!("scored {s} (below the step type's threshold)"),
                None => "failed without a note".to_owned(),
            }
        } else {
            step.notes.clone().into_owned()
        };
        out.push(Critique {
            source: IssueSource::Step,
            label: step.taxonomy().map_or_else(
                || "unlabelled".to_owned(),
                |t| format!("{}/{}/{}", t.l1, t.l2, t.l3),
            ),
            node: IssueNode {
                kind: if tool_step {
                    NodeKind::Tool
                } else {
                    NodeKind::Step
                },
                step_type: Some(step.step_type),
                name: if tool_step {
                    step.name.to_string()
                } else {
                    String::new()
                },
                agent: step.agent.as_deref().map(str::to_owned),
            },
            key: if step.scored_by.contains("judge:") {
                judged_step_key(&step.notes)
            } else {
                message.clone()
            },
            message,
            case: case.id.clone(),
            step: Some(step.id.to_string()),
            spans: step.span_id.iter().map(ToString::to_string).collect(),
        });
    }
    for cp in case
        .checkpoints
        .iter()
        .filter(|c| matches!(c.result, CheckpointState::Fail | CheckpointState::Partial))
    {
        let spans = if cp.cited_spans.is_empty() {
            let mut found: Vec<String> = SPAN_IN_NOTES
                .captures_iter(&cp.notes)
                .map(|c| c[1].to_owned())
                .collect();
            found.dedup();
            found
        } else {
            cp.cited_spans.clone()
        };
        out.push(Critique {
            source: IssueSource::Checkpoint,
            label: cp.severity.as_str().to_owned(),
            node: IssueNode {
                kind: NodeKind::Checkpoint,
                step_type: None,
                name: cp.id.clone(),
                agent: None,
            },
            message: format!("{}: {}", cp.result, cp.notes),
            key: if cp.evaluated_by.starts_with("judge:") {
                cp.matched_criterion.as_ref().map_or_else(
                    || format!("{} (judged)", cp.result),
                    |c| format!("{} (judged): {c}", cp.result),
                )
            } else {
                format!("{}: {}", cp.result, cp.notes)
            },
            case: case.id.clone(),
            step: None,
            spans,
        });
    }
    for t in case
        .trace_judges
        .iter()
        .filter(|t| t.score.is_some_and(|s| s <= LOW_TRACE_SCORE))
    {
        out.push(Critique {
            source: IssueSource::TraceJudge,
            label: t.judge.clone(),
            node: IssueNode {
                kind: NodeKind::Trace,
                step_type: None,
                name: t.metric(),
                agent: None,
            },
            message: t.rationale.clone(),
            key: format!("low score (at most {LOW_TRACE_SCORE} of {})", t.max),
            case: case.id.clone(),
            step: None,
            spans: t.cited_spans.clone(),
        });
    }
    out
}

/// The grouping key of a failed step a judge scored: the rules' own note when the rules
/// scored it too (`rules: …; judge:…`), and that a judge scored it below the threshold;
/// never the judge's rationale or name.
fn judged_step_key(notes: &str) -> String {
    let rules = notes
        .strip_prefix("rules: ")
        .and_then(|rest| rest.split_once("; judge:"))
        .map(|(rules, _)| rules);
    match rules {
        Some(rules) => format!("judged below the step type's threshold; rules: {rules}"),
        None => "judged below the step type's threshold".to_owned(),
    }
}

/// Occurrences of a system-wide issue: total count, and per node (count, display, group id).
type SystemAcc = (usize, Vec<(usize, String, String)>);

#[derive(Default)]
struct Acc {
    count: usize,
    cases: BTreeSet<String>,
    occurrences: Vec<(String, Option<String>, Vec<String>, String)>,
}

/// Group every critique of `cases` (see the module docs).
pub(crate) fn collect_insights(cases: &[CaseReport]) -> Insights {
    collect_insights_of(&cases.iter().collect::<Vec<_>>())
}

/// [`collect_insights`] over some of a report's cases.
pub(crate) fn collect_insights_of(cases: &[&CaseReport]) -> Insights {
    let mut groups: BTreeMap<(IssueSource, String, IssueNode, String), Acc> = BTreeMap::new();
    let mut critiques = 0;
    for case in cases {
        for c in critiques_of_case(case) {
            critiques += 1;
            let key = (c.source, c.label, c.node, normalize_message(&c.key));
            let acc = groups.entry(key).or_default();
            acc.count += 1;
            acc.cases.insert(c.case.clone());
            acc.occurrences.push((c.case, c.step, c.spans, c.message));
        }
    }
    let total = cases.len();
    let share = |n: usize| {
        if total == 0 {
            0.0
        } else {
            n as f64 / total as f64
        }
    };
    let mut out: Vec<IssueGroup> = groups
        .into_iter()
        .map(|((source, label, node, message), mut acc)| {
            acc.occurrences.sort();
            let example_message = acc
                .occurrences
                .first()
                .map(|o| cut(&o.3))
                .unwrap_or_default();
            let mut examples: Vec<IssueExample> = Vec::new();
            for (case, step, spans, _) in acc.occurrences {
                if examples.len() == MAX_EXAMPLES {
                    break;
                }
                // One example per case: the examples show how far it spreads.
                if examples.iter().any(|e| e.case == case) {
                    continue;
                }
                examples.push(IssueExample { case, step, spans });
            }
            IssueGroup {
                id: group_id(source, &label, &node, &message),
                source,
                label,
                node,
                message,
                example_message,
                count: acc.count,
                cases: acc.cases.len(),
                share: share(acc.cases.len()),
                examples,
                summary: None,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.cases
            .cmp(&a.cases)
            .then(b.count.cmp(&a.count))
            .then_with(|| a.id.cmp(&b.id))
    });
    let system = system_issues(&out, cases, total);
    Insights {
        cases: total,
        critiques,
        groups: out,
        system,
    }
}

/// The stable id of a group.
pub(crate) fn group_id(
    source: IssueSource,
    label: &str,
    node: &IssueNode,
    message: &str,
) -> String {
    let key = format!(
        "{}\u{1f}{label}\u{1f}{}\u{1f}{message}",
        source.as_str(),
        node.display()
    );
    let hex = crate::digest::sha256_hex(key.as_bytes());
    format!("I-{}", &hex[..10])
}

fn system_issues(groups: &[IssueGroup], cases: &[&CaseReport], total: usize) -> Vec<SystemIssue> {
    // Distinct cases per system issue need the occurrences again: recount
    // from the critiques (cheap, and exact where unions of group counts are not).
    let mut case_sets: BTreeMap<(IssueSource, String, String), BTreeSet<&str>> = BTreeMap::new();
    for case in cases {
        for c in critiques_of_case(case) {
            case_sets
                .entry((c.source, c.label, normalize_message(&c.key)))
                .or_default()
                .insert(case.id.as_str());
        }
    }
    let mut acc: BTreeMap<(IssueSource, String, String), SystemAcc> = BTreeMap::new();
    for g in groups {
        let e = acc
            .entry((g.source, g.label.clone(), g.message.clone()))
            .or_default();
        e.0 += g.count;
        e.1.push((g.count, g.node.display(), g.id.clone()));
    }
    let mut out: Vec<SystemIssue> = acc
        .into_iter()
        .map(|(key, (count, mut nodes))| {
            nodes.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            let n_cases = case_sets.get(&key).map_or(0, BTreeSet::len);
            let (source, label, message) = key;
            SystemIssue {
                source,
                label,
                message,
                count,
                cases: n_cases,
                share: if total == 0 {
                    0.0
                } else {
                    n_cases as f64 / total as f64
                },
                nodes: nodes.iter().map(|n| n.1.clone()).collect(),
                groups: nodes.into_iter().map(|n| n.2).collect(),
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.cases
            .cmp(&a.cases)
            .then(b.count.cmp(&a.count))
            .then_with(|| a.label.cmp(&b.label))
            .then_with(|| a.message.cmp(&b.message))
    });
    out
}

fn cut(message: &str) -> String {
    let one_line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= EXAMPLE_CHARS {
        return one_line;
    }
    let mut s: String = one_line.chars().take(EXAMPLE_CHARS - 1).collect();
    s.push('…');
    s
}
