//! Tier 1: structured assertions on the case's evidence JSON.

use serde_json::Value;

use crate::spec::json::{as_number, brief, json_contains, json_eq, scalar_text};
use crate::spec::suite::{StateAssert, StateOp};

use super::Verdict;

const BY: &str = "tier1";

/// Evaluate `assert` on `evidence`: PASS when every operator holds, else
/// FAIL naming the first operator that did not.
pub(crate) fn eval_state(assert: &StateAssert, evidence: &Value) -> Verdict {
    let found = evidence.pointer(&assert.path);
    let shown = found.map_or_else(|| "absent".to_owned(), brief);
    for op in &assert.ops {
        if let Err(why) = check(op, found) {
            return Verdict::fail(
                format!("`{}` is {shown}: {why}", display_path(&assert.path)),
                BY,
            );
        }
    }
    Verdict::pass(format!("`{}` is {shown}", display_path(&assert.path)), BY)
}

/// Whether `assert` holds (used for `active_when`).
pub(super) fn holds(assert: &StateAssert, evidence: &Value) -> bool {
    let found = evidence.pointer(&assert.path);
    assert.ops.iter().all(|op| check(op, found).is_ok())
}

fn display_path(path: &str) -> &str {
    if path.is_empty() { "/" } else { path }
}

fn check(op: &StateOp, found: Option<&Value>) -> Result<(), String> {
    // `null` counts as absent for `exists`, and fails every comparison.
    let present = found.filter(|v| !v.is_null());
    match op {
        StateOp::Exists(want) => match (present.is_some(), *want) {
            (true, true) | (false, false) => Ok(()),
            (false, true) => Err("expected it to exist".into()),
            (true, false) => Err("expected it to be absent".into()),
        },
        StateOp::Equals(want) => match found {
            Some(v) if json_eq(v, want) => Ok(()),
            _ => Err(format!("expected {}", brief(want))),
        },
        StateOp::NotEquals(unwanted) => match found {
            Some(v) if json_eq(v, unwanted) => {
                Err(format!("expected anything but {}", brief(unwanted)))
            }
            _ => Ok(()),
        },
        StateOp::Contains(needle) => match present {
            Some(v) if json_contains(v, needle) => Ok(()),
            _ => Err(format!("expected it to contain {}", brief(needle))),
        },
        StateOp::Matches(re) => match present {
            Some(v @ (Value::String(_) | Value::Number(_) | Value::Bool(_)))
                if re.is_match(&scalar_text(v)) =>
            {
                Ok(())
            }
            _ => Err(format!("expected it to match /{}/", re.as_str())),
        },
        StateOp::In(options) => match present {
            Some(v) if options.iter().any(|o| json_eq(v, o)) => Ok(()),
            _ => Err(format!(
                "expected one of {}",
                brief(&Value::Array(options.clone()))
            )),
        },
        StateOp::Gte(min) => match present.and_then(as_number) {
            Some(n) if n >= *min => Ok(()),
            Some(_) => Err(format!("expected ≥ {min}")),
            None => Err(format!("expected a number ≥ {min}")),
        },
        StateOp::Lte(max) => match present.and_then(as_number) {
            Some(n) if n <= *max => Ok(()),
            Some(_) => Err(format!("expected ≤ {max}")),
            None => Err(format!("expected a number ≤ {max}")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::run::CheckpointState;
    use serde_json::json;

    fn assert_of(path: &str, ops: Vec<StateOp>) -> StateAssert {
        StateAssert {
            path: path.into(),
            ops,
        }
    }

    #[test]
    fn every_operator_decides_pass_and_fail() {
        let ev = json!({"ticket": {"status": "In Progress", "labels": ["bug", "p1"], "n": "7"}, "pr": {"draft": true}});
        let cases: Vec<(StateAssert, CheckpointState)> = vec![
            (
                assert_of(
                    "/ticket/status",
                    vec![StateOp::Equals(json!("In Progress"))],
                ),
                CheckpointState::Pass,
            ),
            (
                assert_of("/ticket/status", vec![StateOp::Equals(json!("Done"))]),
                CheckpointState::Fail,
            ),
            (
                assert_of("/ticket/status", vec![StateOp::NotEquals(json!("Done"))]),
                CheckpointState::Pass,
            ),
            (
                assert_of("/missing", vec![StateOp::NotEquals(json!("x"))]),
                CheckpointState::Pass,
            ),
            (
                assert_of("/pr/draft", vec![StateOp::Exists(true)]),
                CheckpointState::Pass,
            ),
            (
                assert_of("/pr/merged", vec![StateOp::Exists(true)]),
                CheckpointState::Fail,
            ),
            (
                assert_of("/pr/merged", vec![StateOp::Exists(false)]),
                CheckpointState::Pass,
            ),
            (
                assert_of("/ticket/labels", vec![StateOp::Contains(json!("p1"))]),
                CheckpointState::Pass,
            ),
            (
                assert_of("/ticket/labels", vec![StateOp::Contains(json!("p2"))]),
                CheckpointState::Fail,
            ),
            (
                assert_of(
                    "/ticket/status",
                    vec![StateOp::Matches(regex::Regex::new("^In ").unwrap())],
                ),
                CheckpointState::Pass,
            ),
            (
                assert_of(
                    "/ticket/status",
                    vec![StateOp::In(vec![json!("Open"), json!("In Progress")])],
                ),
                CheckpointState::Pass,
            ),
            (
                assert_of("/ticket/n", vec![StateOp::Gte(7.0), StateOp::Lte(7.0)]),
                CheckpointState::Pass,
            ),
            (
                assert_of("/ticket/n", vec![StateOp::Gte(8.0)]),
                CheckpointState::Fail,
            ),
            (
                assert_of("/ticket/status", vec![StateOp::Gte(1.0)]),
                CheckpointState::Fail,
            ),
        ];
        for (a, want) in cases {
            let v = eval_state(&a, &ev);
            assert_eq!(v.state, want, "{:?} → {}", a.ops, v.notes);
        }
    }

    #[test]
    fn failure_notes_show_found_value_and_expectation() {
        let v = eval_state(
            &assert_of(
                "/ticket/status",
                vec![StateOp::Equals(json!("In Progress"))],
            ),
            &json!({"ticket": {"status": "Open"}}),
        );
        assert_eq!(
            v.notes,
            "`/ticket/status` is \"Open\": expected \"In Progress\""
        );
        assert_eq!(v.weight, Some(0.0));
    }
}
