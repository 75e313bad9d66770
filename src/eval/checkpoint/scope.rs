//! `applies_to`: whether a checkpoint applies to a case. Where it does not,
//! the checkpoint is N/A "not applicable to this case" (evaluated by
//! `applies_to`), which leaves compliance and spec health alone.

use std::collections::BTreeMap;

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
    if let Some(e) = &scope.where_ {
        let metadata = Value::Object(
            case.metadata
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        );
        let tags = Value::from(case.tags.clone());
        let id = Value::from(case.id.clone());
        let expected = Value::from(case.expected_tools.clone());
        let null = Value::Null;
        let vars: BTreeMap<&str, &Value> = [
            ("evidence", evidence.unwrap_or(&null)),
            ("metadata", &metadata),
            ("tags", &tags),
            ("case", &id),
            ("expected_tools", &expected),
        ]
        .into_iter()
        .collect();
        match e.evaluate(&vars) {
            Ok(true) => {}
            Ok(false) => {
                return out(format!(
                    "not applicable to this case: `applies_to.where: {}` is false",
                    crate::output::truncate_chars(&e.source, 80)
                ));
            }
            Err(why) => {
                return Err((
                    NaKind::ExprError,
                    format!(
                        "could not be evaluated: `applies_to.where: {}`: {why}",
                        crate::output::truncate_chars(&e.source, 80)
                    ),
                ));
            }
        }
    }
    for sub in &scope.all_of {
        applies(sub, case, evidence)?;
    }
    if !scope.any_of.is_empty() {
        let mut first_out = None;
        let mut unknown = None;
        let mut any = false;
        for sub in &scope.any_of {
            match applies(sub, case, evidence) {
                Ok(()) => {
                    any = true;
                    break;
                }
                Err((NaKind::NotApplicable, why)) => {
                    first_out.get_or_insert(why);
                }
                Err(other) => {
                    unknown.get_or_insert(other);
                }
            }
        }
        if !any {
            // An alternative that could not be decided might have held.
            if let Some(e) = unknown {
                return Err(e);
            }
            return out(format!(
                "not applicable to this case: no `applies_to.any_of` condition holds (first: {})",
                first_out
                    .unwrap_or_default()
                    .trim_start_matches("not applicable to this case: ")
            ));
        }
    }
    if let Some(sub) = &scope.not {
        match applies(sub, case, evidence) {
            Ok(()) => {
                return out(
                    "not applicable to this case: the `applies_to.not` condition holds".to_owned(),
                );
            }
            Err((NaKind::NotApplicable, _)) => {}
            Err(other) => return Err(other),
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
            ..Scope::default()
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

    fn tagged(tag: &str) -> Scope {
        Scope {
            tags: vec![tag.into()],
            ..Scope::default()
        }
    }

    fn expr(src: &str) -> std::sync::Arc<crate::spec::expr::Expr> {
        std::sync::Arc::new(
            crate::spec::expr::compile(src, crate::spec::matcher::CASE_VARS).unwrap(),
        )
    }

    #[test]
    fn combinators_and_where_scope_cases() {
        let not_transfer = Scope {
            not: Some(Box::new(tagged("transfer"))),
            ..Scope::default()
        };
        assert_eq!(
            applies(&not_transfer, &case("a", &["booking"]), None),
            Ok(())
        );
        let (kind, why) = applies(&not_transfer, &case("a", &["transfer"]), None).unwrap_err();
        assert_eq!(kind, NaKind::NotApplicable);
        assert!(why.contains("`applies_to.not` condition holds"), "{why}");
        let either = Scope {
            any_of: vec![tagged("booking"), tagged("cancellation")],
            ..Scope::default()
        };
        assert_eq!(
            applies(&either, &case("a", &["cancellation"]), None),
            Ok(())
        );
        assert!(applies(&either, &case("a", &["read-only"]), None).is_err());
        let both = Scope {
            all_of: vec![tagged("booking"), not_transfer.clone()],
            ..Scope::default()
        };
        assert_eq!(applies(&both, &case("a", &["booking"]), None), Ok(()));
        assert!(applies(&both, &case("a", &["booking", "transfer"]), None).is_err());
        // `where` over the evidence; an error is unevaluated, not out of scope,
        // also under `not` and `any_of`.
        let rich = Scope {
            where_: Some(expr("evidence.reward >= 1.0 && 'smoke' in tags")),
            ..Scope::default()
        };
        let ev = json!({"reward": 1.0});
        assert_eq!(applies(&rich, &case("a", &["smoke"]), Some(&ev)), Ok(()));
        assert_eq!(
            applies(&rich, &case("a", &[]), Some(&ev)).unwrap_err().0,
            NaKind::NotApplicable
        );
        let (kind, why) = applies(&rich, &case("a", &["smoke"]), None).unwrap_err();
        assert_eq!(kind, NaKind::ExprError, "{why}");
        let negated = Scope {
            not: Some(Box::new(rich.clone())),
            ..Scope::default()
        };
        assert_eq!(
            applies(&negated, &case("a", &["smoke"]), None)
                .unwrap_err()
                .0,
            NaKind::ExprError
        );
        let alternatives = Scope {
            any_of: vec![tagged("booking"), rich],
            ..Scope::default()
        };
        assert_eq!(
            applies(&alternatives, &case("a", &["smoke"]), None)
                .unwrap_err()
                .0,
            NaKind::ExprError
        );
        assert_eq!(
            applies(&alternatives, &case("a", &["booking"]), None),
            Ok(())
        );
    }
}
