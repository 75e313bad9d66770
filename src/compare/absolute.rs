//! Absolute gates (`gates.absolute`): thresholds on a suite metric's mean,
//! checked by `run` and `compare` alike.

use crate::model::compare::AbsoluteBreach;
use std::collections::BTreeMap;

use crate::spec::model::{GatesSpec, Severity};

/// Every absolute gate that `metrics` (suite means) breaches. A gated metric
/// with no value breaches too: a gate never passes for lack of data.
pub(crate) fn check_absolute(
    gates: &GatesSpec,
    metrics: &BTreeMap<String, f64>,
) -> Vec<AbsoluteBreach> {
    let mut out = Vec::new();
    for (name, gate) in &gates.absolute {
        let severity = gate.severity.unwrap_or(Severity::Critical);
        let value = metrics.get(name).copied();
        let message = match value {
            None => Some(format!(
                "`{name}` has no value in this run, so `gates.absolute` cannot be checked"
            )),
            Some(v) => match (gate.min, gate.max) {
                (Some(min), _) if v < min => {
                    Some(format!("`{name}` is {} (minimum {})", fmt(v), fmt(min)))
                }
                (_, Some(max)) if v > max => {
                    Some(format!("`{name}` is {} (maximum {})", fmt(v), fmt(max)))
                }
                _ => None,
            },
        };
        if let Some(message) = message {
            out.push(AbsoluteBreach {
                metric: name.clone(),
                value,
                min: gate.min,
                max: gate.max,
                severity,
                message,
            });
        }
    }
    out
}

fn fmt(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::model::AbsoluteGateSpec;

    #[test]
    fn min_max_and_missing_values_breach() {
        let mut gates = GatesSpec::default();
        gates.absolute.insert(
            "compliance_percent".into(),
            AbsoluteGateSpec {
                min: Some(70.0),
                max: None,
                severity: None,
            },
        );
        gates.absolute.insert(
            "cost_usd".into(),
            AbsoluteGateSpec {
                min: None,
                max: Some(0.5),
                severity: Some(Severity::Medium),
            },
        );
        gates.absolute.insert(
            "task_success".into(),
            AbsoluteGateSpec {
                min: Some(0.5),
                max: None,
                severity: None,
            },
        );
        let metrics: BTreeMap<String, f64> = [
            ("compliance_percent".to_owned(), 65.5),
            ("cost_usd".to_owned(), 0.25),
        ]
        .into_iter()
        .collect();
        let b = check_absolute(&gates, &metrics);
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].message, "`compliance_percent` is 65.5 (minimum 70)");
        assert_eq!(b[0].severity, Severity::Critical);
        assert_eq!(b[1].metric, "task_success");
        assert_eq!(b[1].value, None);
    }
}
