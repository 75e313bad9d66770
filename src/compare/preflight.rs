//! What `lint` can tell before anything runs about how the gate will decide: a smoke tier
//! too small to ever stop the run, and checkpoints that can fail the gate but that no case
//! will be able to evaluate (DESIGN §8). Pure: the suite in, warnings out.

use crate::compare::decide::SMOKE_ALPHA_SHARE;
use crate::spec::gates::DEFAULT_ALPHA;
use crate::spec::model::{FailOn, UnevaluatedPolicy};
use crate::spec::suite::{Check, Suite};

/// A warning about the gate, attached to a checkpoint or to the smoke tier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GateWarning {
    /// The checkpoint it is about, or `None` for the smoke tier.
    pub checkpoint: Option<String>,
    pub message: String,
    pub help: String,
}

/// Fewest changed cases with which a paired test at level `alpha` can reach significance:
/// the smallest achievable p is `2⁻ᵏ`.
pub(crate) fn min_changed_cases(alpha: f64) -> usize {
    let mut k = 0;
    while 0.5_f64.powi(k) > alpha && k < 64 {
        k += 1;
    }
    k as usize
}

/// Every warning for `suite` when the gate fails at `fail_on` and a judge is (or is not)
/// configured.
pub(crate) fn gate_warnings(
    suite: &Suite,
    judge_configured: bool,
    fail_on: FailOn,
) -> Vec<GateWarning> {
    let mut out = Vec::new();
    let alpha = suite.gates.alpha.unwrap_or(DEFAULT_ALPHA);
    let smoke = suite.smoke_cases().len();
    let needed = min_changed_cases(alpha * SMOKE_ALPHA_SHARE);
    if smoke > 0 && smoke < needed {
        out.push(GateWarning {
            checkpoint: None,
            message: format!(
                "the smoke tier selects {smoke} cases: it can stop the run only when at least {needed} cases changed, so it never will"
            ),
            help: format!(
                "the smoke tier tests at {:.0}% of α (progressive α-spending); select at least {needed} cases (`tiers.smoke.tags`, `first`, `max_cases`) or drop `tiers.smoke`",
                SMOKE_ALPHA_SHARE * 100.0
            ),
        });
    }
    // With `gates.unevaluated: warn` the suite has accepted N/A tier-3
    // checkpoints: the comparison reports them, lint does not nag.
    let fails = suite.gates.unevaluated.unwrap_or_default() == UnevaluatedPolicy::Fail;
    if !judge_configured && fails {
        for cp in suite
            .checkpoints
            .iter()
            .filter(|cp| matches!(cp.check, Check::Semantic { .. }) && fail_on.fails(cp.severity))
        {
            out.push(GateWarning {
                checkpoint: Some(cp.id.clone()),
                message: format!(
                    "checkpoint `{}` ({}) is tier 3 and no judge is configured: it will be N/A in every case, and the gate will fail because it cannot vouch for it",
                    cp.id, cp.severity,
                ),
                help: "configure a judge (`--judge`, see README), lower its severity below `fail_on`, or set `gates.unevaluated: warn`".into(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_cases_needed_per_alpha() {
        assert_eq!(min_changed_cases(0.05), 5, "2^-5 = 0.031");
        assert_eq!(min_changed_cases(0.01), 7, "2^-7 = 0.0078");
        assert_eq!(min_changed_cases(0.5), 1);
        assert_eq!(min_changed_cases(0.0625), 4);
    }
}
