//! Task success: the case's `expected_output` matchers applied to the run's
//! final answer, and the suite's `task.success` from ground truth (an
//! evidence condition such as tau-bench's `reward = 1`, or named
//! checkpoints that must PASS). When both exist, both must hold.
//!
//! - `exact`: equal after trimming surrounding whitespace;
//! - `normalized`: equal after lower-casing, turning punctuation into spaces
//!   and collapsing whitespace;
//! - `contains`: the answer contains the text, ignoring case;
//! - `regex`: the pattern matches somewhere in the answer;
//! - `json_keys`: the answer is a JSON object (bare, in a fenced `json` code block, or
//!   the outermost `{…}` in the text) holding every key;
//! - `semantic`: decided by the judge ([`super::semantic`]); without one,
//!   `success` is `None`.
//!
//! When a case gives several matchers (lint warns), all must hold.

use serde_json::Value;

use super::semantic::{SemanticJudgment, semantic_outcome};
use crate::eval::checkpoint::eval_state;
use crate::model::run::{CheckpointResult, CheckpointState, TaskResult};
use crate::spec::model::ExpectedOutput;
use crate::spec::suite::TaskSuccess;

/// `task.success` on one case: the evidence condition (no evidence file:
/// undecided) and the named checkpoints (FAIL or PARTIAL: failure; N/A or
/// BLOCKED: undecided). A failure anywhere wins over undecided.
pub(crate) fn evaluate_ground_truth(
    spec: &TaskSuccess,
    evidence: Option<&Value>,
    checkpoints: &[CheckpointResult],
) -> TaskResult {
    let mut names = Vec::new();
    let mut outcomes: Vec<(Option<bool>, String)> = Vec::new();
    if let Some(assert) = &spec.evidence {
        names.push("evidence");
        outcomes.push(match evidence {
            None => (None, "no evidence file for this case".to_owned()),
            Some(ev) => {
                let v = eval_state(assert, ev);
                let ok = v.state == CheckpointState::Pass;
                (Some(ok), format!("evidence {}", v.notes))
            }
        });
    }
    if !spec.checkpoints.is_empty() {
        names.push("checkpoints");
    }
    for id in &spec.checkpoints {
        outcomes.push(match checkpoints.iter().find(|c| &c.id == id) {
            None => (None, format!("checkpoint {id} was not evaluated")),
            Some(c) => {
                let decided = match c.result {
                    CheckpointState::Pass => Some(true),
                    CheckpointState::Fail | CheckpointState::Partial => Some(false),
                    CheckpointState::NotApplicable | CheckpointState::Blocked => None,
                };
                (decided, format!("checkpoint {id} is {}", c.result.as_str()))
            }
        });
    }
    decide(names.join("+"), outcomes)
}

/// Both results when both exist: a failure in either fails, success needs both.
pub(crate) fn combine(a: Option<TaskResult>, b: Option<TaskResult>) -> Option<TaskResult> {
    match (a, b) {
        (Some(a), Some(b)) => Some(decide(
            format!("{}+{}", a.matcher, b.matcher),
            vec![(a.success, a.detail), (b.success, b.detail)],
        )),
        (a, b) => a.or(b),
    }
}

/// Any `false` → false; all `true` → true; otherwise undecided.
fn decide(matcher: String, outcomes: Vec<(Option<bool>, String)>) -> TaskResult {
    let success = if outcomes.iter().any(|(s, _)| *s == Some(false)) {
        Some(false)
    } else if outcomes.iter().all(|(s, _)| *s == Some(true)) {
        Some(true)
    } else {
        None
    };
    TaskResult {
        matcher,
        success,
        detail: outcomes
            .into_iter()
            .map(|(_, d)| d)
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// Apply `expected` to `answer` (`None`: the run produced no answer).
pub(crate) fn evaluate_task(expected: &ExpectedOutput, answer: Option<&str>) -> TaskResult {
    evaluate_task_with(expected, answer, None)
}

/// [`evaluate_task`] with the judge's answer for the `semantic` matcher.
pub(crate) fn evaluate_task_with(
    expected: &ExpectedOutput,
    answer: Option<&str>,
    semantic: Option<&SemanticJudgment>,
) -> TaskResult {
    let matchers = expected.matchers();
    let matcher = if matchers.is_empty() {
        "none".to_owned()
    } else {
        matchers.join("+")
    };
    if matchers.is_empty() {
        return TaskResult {
            matcher,
            success: None,
            detail: "expected_output has no matcher".into(),
        };
    }
    let Some(answer) = answer else {
        let decided = expected.semantic.is_none() || matchers.len() > 1;
        return TaskResult {
            matcher,
            success: decided.then_some(false),
            detail: "the run produced no final answer".into(),
        };
    };
    let mut outcomes: Vec<(Option<bool>, String)> = Vec::new();
    if let Some(want) = &expected.exact {
        let ok = answer.trim() == want.trim();
        outcomes.push((
            Some(ok),
            if ok {
                "exact match".into()
            } else {
                format!("answer is not exactly {}", quote(want))
            },
        ));
    }
    if let Some(want) = &expected.normalized {
        let ok = normalize(answer) == normalize(want);
        outcomes.push((
            Some(ok),
            if ok {
                "normalized match".into()
            } else {
                format!("answer does not normalize to {}", quote(want))
            },
        ));
    }
    if let Some(want) = &expected.contains {
        let ok = answer.to_lowercase().contains(&want.to_lowercase());
        outcomes.push((
            Some(ok),
            format!(
                "answer {} {}",
                if ok { "contains" } else { "does not contain" },
                quote(want)
            ),
        ));
    }
    if let Some(pattern) = &expected.regex {
        outcomes.push(match crate::spec::matcher::compile_regex(pattern) {
            Ok(re) => {
                let ok = re.is_match(answer);
                (
                    Some(ok),
                    format!(
                        "answer {} /{pattern}/",
                        if ok { "matches" } else { "does not match" }
                    ),
                )
            }
            Err(e) => (
                None,
                format!(
                    "invalid regex /{}/: {e}",
                    crate::spec::matcher::shown(pattern)
                ),
            ),
        });
    }
    if let Some(keys) = &expected.json_keys {
        outcomes.push(match json_object(answer) {
            Some(obj) => {
                let missing: Vec<&str> = keys
                    .iter()
                    .map(String::as_str)
                    .filter(|k| !obj.contains_key(*k))
                    .collect();
                if missing.is_empty() {
                    (
                        Some(true),
                        format!("answer is a JSON object with {}", keys.join(", ")),
                    )
                } else {
                    (
                        Some(false),
                        format!("answer JSON lacks {}", missing.join(", ")),
                    )
                }
            }
            None => (Some(false), "answer is not a JSON object".into()),
        });
    }
    if expected.semantic.is_some() {
        outcomes.push(semantic_outcome(semantic));
    }
    let success = if outcomes.iter().any(|(s, _)| *s == Some(false)) {
        Some(false)
    } else if outcomes.iter().all(|(s, _)| *s == Some(true)) {
        Some(true)
    } else {
        None
    };
    let detail = outcomes
        .into_iter()
        .map(|(_, d)| d)
        .collect::<Vec<_>>()
        .join("; ");
    TaskResult {
        matcher,
        success,
        detail,
    }
}

/// Lower-case, punctuation to spaces, whitespace collapsed.
pub(crate) fn normalize(text: &str) -> String {
    let spaced: String = text
        .chars()
        .flat_map(char::to_lowercase)
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    spaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn json_object(answer: &str) -> Option<serde_json::Map<String, Value>> {
    let trimmed = answer.trim();
    let candidates = [
        Some(trimmed),
        fenced(trimmed),
        trimmed
            .find('{')
            .zip(trimmed.rfind('}'))
            .filter(|(a, b)| a < b)
            .map(|(a, b)| &trimmed[a..=b]),
    ];
    candidates
        .into_iter()
        .flatten()
        .find_map(|text| match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => Some(map),
            _ => None,
        })
}

fn fenced(text: &str) -> Option<&str> {
    let start = text.find("```")?;
    let rest = &text[start + 3..];
    let body_start = rest.find('\n')? + 1;
    let body = &rest[body_start..];
    let end = body.find("```")?;
    Some(body[..end].trim())
}

fn quote(text: &str) -> String {
    let short: String = text.chars().take(80).collect();
    if short.len() < text.len() {
        format!("`{short}…`")
    } else {
        format!("`{short}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expect(yaml: &str) -> ExpectedOutput {
        serde_saphyr::from_str(yaml).unwrap()
    }

    #[test]
    fn each_matcher_decides() {
        let r = evaluate_task(&expect("{exact: '42'}"), Some(" 42\n"));
        assert_eq!((r.matcher.as_str(), r.success), ("exact", Some(true)));
        assert_eq!(
            evaluate_task(&expect("{exact: '42'}"), Some("42.")).success,
            Some(false)
        );
        assert_eq!(
            evaluate_task(
                &expect("{normalized: 'Hello, World!'}"),
                Some("hello   world")
            )
            .success,
            Some(true)
        );
        assert_eq!(
            evaluate_task(&expect("{contains: DUE}"), Some("Your bill is due Friday")).success,
            Some(true)
        );
        assert_eq!(
            evaluate_task(&expect("{contains: refund}"), Some("Your bill is due")).success,
            Some(false)
        );
        assert_eq!(
            evaluate_task(
                &expect("{regex: '\\$\\d+\\.\\d{2}'}"),
                Some("Balance: $12.50")
            )
            .success,
            Some(true)
        );
        let bad = evaluate_task(&expect("{regex: '('}"), Some("x"));
        assert_eq!(bad.success, None);
        assert!(bad.detail.starts_with("invalid regex"));
    }

    #[test]
    fn json_keys_finds_objects_in_fences_and_prose() {
        let e = expect("{json_keys: [balance, due]}");
        assert_eq!(
            evaluate_task(&e, Some(r#"{"balance": 1, "due": "x"}"#)).success,
            Some(true)
        );
        assert_eq!(
            evaluate_task(
                &e,
                Some("Here:\n```json\n{\"balance\": 1, \"due\": 2}\n```")
            )
            .success,
            Some(true)
        );
        assert_eq!(
            evaluate_task(&e, Some("The result is {\"balance\": 1} as asked")).success,
            Some(false)
        );
        assert_eq!(
            evaluate_task(&e, Some("no json")).detail,
            "answer is not a JSON object"
        );
    }

    #[test]
    fn semantic_without_judge_and_missing_answers() {
        let r = evaluate_task(
            &expect("{semantic: 'states the balance'}"),
            Some("anything"),
        );
        assert_eq!(r.success, None);
        assert!(r.detail.contains("no judge configured"));
        assert_eq!(
            evaluate_task(&expect("{contains: x}"), None).success,
            Some(false)
        );
        assert_eq!(evaluate_task(&expect("{semantic: x}"), None).success, None);
        assert_eq!(
            evaluate_task(&expect("{contains: a, exact: b}"), Some("a")).matcher,
            "exact+contains"
        );
    }

    fn checkpoint(id: &str, result: CheckpointState) -> CheckpointResult {
        CheckpointResult {
            id: id.into(),
            position_index: 1,
            tier: 2,
            severity: crate::spec::model::Severity::High,
            result,
            earned_weight: None,
            notes: String::new(),
            evaluated_by: "tier2".into(),
            matched_criterion: None,
            cited_spans: vec![],
            blocked_by: None,
            confidence: None,
            na_kind: None,
        }
    }

    #[test]
    fn ground_truth_from_evidence_and_checkpoints() {
        use crate::spec::suite::{StateAssert, StateOp};
        let spec = TaskSuccess {
            evidence: Some(StateAssert {
                path: "/reward".into(),
                ops: vec![StateOp::Equals(serde_json::json!(1))],
            }),
            checkpoints: vec!["A".into()],
        };
        let won = serde_json::json!({"reward": 1.0});
        let lost = serde_json::json!({"reward": 0.0});
        let pass = [checkpoint("A", CheckpointState::Pass)];
        let r = evaluate_ground_truth(&spec, Some(&won), &pass);
        assert_eq!(
            (r.matcher.as_str(), r.success),
            ("evidence+checkpoints", Some(true))
        );
        assert_eq!(r.detail, "evidence `/reward` is 1.0; checkpoint A is PASS");
        assert_eq!(
            evaluate_ground_truth(&spec, Some(&lost), &pass).success,
            Some(false)
        );
        // Undecided sources leave the case undecided, unless another one failed.
        let blocked = [checkpoint("A", CheckpointState::Blocked)];
        assert_eq!(
            evaluate_ground_truth(&spec, Some(&won), &blocked).success,
            None
        );
        assert_eq!(
            evaluate_ground_truth(&spec, Some(&lost), &blocked).success,
            Some(false)
        );
        assert_eq!(evaluate_ground_truth(&spec, None, &pass).success, None);
        let partial = [checkpoint("A", CheckpointState::Partial)];
        assert_eq!(
            evaluate_ground_truth(&spec, Some(&won), &partial).success,
            Some(false)
        );
        // Next to the final-answer matcher: both must hold.
        let answer = evaluate_task(&expect("{contains: done}"), Some("not yet"));
        let both = combine(
            Some(evaluate_ground_truth(&spec, Some(&won), &pass)),
            Some(answer),
        );
        let both = both.unwrap();
        assert_eq!(
            (both.matcher.as_str(), both.success),
            ("evidence+checkpoints+contains", Some(false))
        );
        assert_eq!(combine(None, None), None);
    }
}
