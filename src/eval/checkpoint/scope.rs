//! `applies_to`: whether a checkpoint applies to a case. Where it does not,
//! the checkpoint is N/A "not applicable to this case" (evaluated by
//! `applies_to`), which leaves compliance and spec health alone.

use serde_json::Value;

use crate::model::run::NaKind;
use crate::spec::suite::{Case, Scope};

use super::tier1::holds;

/// `Ok(())` when the checkpoint applies, else why not: out of scope
/// (`NaKind::NotApplicable`), or no evidence to decide the scope with
/// (`NaKind::NoEvidence`, which the gate does not count as evaluated).
pub(super) fn applies(
    scope: &Scope,
    case: &Case,
    evidence: Option<&Value>,
) -> Result<(), (NaKind, String)> {
    let out = |reason: String| Err((NaKind::NotApplicable, reason));
    if !scope.cases.is_empty() && !scope.cases.contains(&case.id) {
        return out(format!(
            "not applicable to this case: `applies_to.cases` does not list `{}`",
            case.id
        ));
    }
    if !scope.tags.is_empty() && !case.tags.iter().any(|t| scope.tags.contains(t)) {
        return out(format!(
            "not applicable to this case: it has none of the tags {}",
            scope
                .tags
                .iter()
                .map(|t| format!("`{t}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some(condition) = &scope.evidence {
        match evidence {
            None => {
                return Err((
                    NaKind::NoEvidence,
                    "not applicable to this case: `applies_to.evidence` needs the case's evidence file, and there is none"
                        .to_owned(),
                ));
            }
            Some(ev) if !holds(condition, ev) => {
                return out(format!(
                    "not applicable to this case: `applies_to.evidence` on `{}` does not hold",
                    if condition.path.is_empty() {
                        "/"
                    } else {
                        &condition.path
                    }
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::suite::{StateAssert, StateOp};
    use serde_json::json;

    fn case(id: &str, tags: &[&str]) -> Case {
        Case {
            id: id.into(),
            input: Value::Null,
            tags: tags.iter().map(|t| (*t).to_owned()).collect(),
            expected_output: None,
            expected_tools: vec![],
            difficulty: None,
            trace: None,
            evidence: None,
            metadata: std::collections::BTreeMap::new(),
        }
    }

    #[test]
    fn every_selector_must_hold() {
        let scope = Scope {
            tags: vec!["refund".into(), "cancel".into()],
            cases: vec![],
            evidence: Some(StateAssert {
                path: "/vip".into(),
                ops: vec![StateOp::Equals(json!(true))],
            }),
        };
        let vip = json!({"vip": true});
        assert_eq!(applies(&scope, &case("a", &["cancel"]), Some(&vip)), Ok(()));
        let (kind, why) = applies(&scope, &case("a", &["booking"]), Some(&vip)).unwrap_err();
        assert_eq!(kind, NaKind::NotApplicable);
        assert_eq!(
            why,
            "not applicable to this case: it has none of the tags `refund`, `cancel`"
        );
        let (_, why) = applies(
            &scope,
            &case("a", &["refund"]),
            Some(&json!({"vip": false})),
        )
        .unwrap_err();
        assert!(
            why.contains("`applies_to.evidence` on `/vip` does not hold"),
            "{why}"
        );
        let (kind, why) = applies(&scope, &case("a", &["refund"]), None).unwrap_err();
        assert_eq!(kind, NaKind::NoEvidence);
        assert!(why.contains("needs the case's evidence file"), "{why}");
        let by_id = Scope {
            cases: vec!["b".into()],
            ..Scope::default()
        };
        assert!(applies(&by_id, &case("a", &[]), None).is_err());
        assert_eq!(applies(&by_id, &case("b", &[]), None), Ok(()));
    }
}
