//! `applies_to`: whether a checkpoint applies to a case. Where it does not,
//! the checkpoint is N/A "not applicable to this case" (evaluated by
//! `applies_to`), which leaves compliance and spec health alone.

use serde_json::Value;

use crate::spec::suite::{Case, Scope};

use super::tier1::holds;

/// `Ok(())` when the checkpoint applies, else the reason it does not.
pub(super) fn applies(scope: &Scope, case: &Case, evidence: Option<&Value>) -> Result<(), String> {
    if !scope.cases.is_empty() && !scope.cases.contains(&case.id) {
        return Err(format!(
            "not applicable to this case: `applies_to.cases` does not list `{}`",
            case.id
        ));
    }
    if !scope.tags.is_empty() && !case.tags.iter().any(|t| scope.tags.contains(t)) {
        return Err(format!(
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
                return Err(
                    "not applicable to this case: `applies_to.evidence` needs the case's evidence file, and there is none"
                        .to_owned(),
                );
            }
            Some(ev) if !holds(condition, ev) => {
                return Err(format!(
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
