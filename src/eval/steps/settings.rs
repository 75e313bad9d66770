//! Suite-level step settings resolved once: per-type thresholds, the
//! root-cause mode, and the tool-use windows, with their defaults.

use crate::spec::model::{RootCauseMode, ScoringSpec, StepType, ThresholdsSpec};
use crate::spec::suite::Suite;

/// Default `scoring.redundancy_window`.
pub(crate) const DEFAULT_REDUNDANCY_WINDOW: usize = 3;
/// Default `scoring.loop_threshold`.
pub(crate) const DEFAULT_LOOP_THRESHOLD: usize = 3;

/// Pass thresholds on the 1–5 step score; a step fails when `score < threshold`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    pub plan: f64,
    pub toolsel: f64,
    pub paramgen: f64,
    pub exec: f64,
    pub synth: f64,
}

impl Default for Thresholds {
    /// `AgentEval`'s defaults: PLAN 3.0, TOOLSEL 3.0, PARAMGEN 2.5, EXEC 3.0, SYNTH 3.0.
    fn default() -> Self {
        Self {
            plan: StepType::Plan.default_threshold(),
            toolsel: StepType::ToolSel.default_threshold(),
            paramgen: StepType::ParamGen.default_threshold(),
            exec: StepType::Exec.default_threshold(),
            synth: StepType::Synth.default_threshold(),
        }
    }
}

impl Thresholds {
    /// The suite's `thresholds:` over the defaults.
    pub fn from_spec(spec: Option<&ThresholdsSpec>) -> Self {
        let d = Self::default();
        let Some(s) = spec else { return d };
        Self {
            plan: s.plan.unwrap_or(d.plan),
            toolsel: s.toolsel.unwrap_or(d.toolsel),
            paramgen: s.paramgen.unwrap_or(d.paramgen),
            exec: s.exec.unwrap_or(d.exec),
            synth: s.synth.unwrap_or(d.synth),
        }
    }

    pub fn get(&self, step_type: StepType) -> f64 {
        match step_type {
            StepType::Plan => self.plan,
            StepType::ToolSel => self.toolsel,
            StepType::ParamGen => self.paramgen,
            StepType::Exec => self.exec,
            StepType::Synth => self.synth,
        }
    }
}

/// Everything about step evaluation that is fixed per suite.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepSettings {
    pub thresholds: Thresholds,
    pub root_cause: RootCauseMode,
    /// Same tool + same arguments within this many tool calls is redundant.
    pub redundancy_window: usize,
    /// This many identical calls in a row make a loop.
    pub loop_threshold: usize,
}

impl Default for StepSettings {
    fn default() -> Self {
        Self::from_spec(None, None)
    }
}

impl StepSettings {
    /// The settings of a loaded suite.
    pub fn from_suite(suite: &Suite) -> Self {
        Self::from_spec(Some(&suite.thresholds), Some(&suite.scoring))
    }

    /// Resolve the suite's `thresholds:` and `scoring:` blocks.
    pub fn from_spec(thresholds: Option<&ThresholdsSpec>, scoring: Option<&ScoringSpec>) -> Self {
        Self {
            thresholds: Thresholds::from_spec(thresholds),
            root_cause: scoring.and_then(|s| s.root_cause).unwrap_or_default(),
            redundancy_window: scoring
                .and_then(|s| s.redundancy_window)
                .unwrap_or(DEFAULT_REDUNDANCY_WINDOW),
            loop_threshold: scoring
                .and_then(|s| s.loop_threshold)
                .unwrap_or(DEFAULT_LOOP_THRESHOLD)
                .max(2),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_values_override_defaults_field_by_field() {
        let spec: ThresholdsSpec = serde_saphyr::from_str("{EXEC: 4.0}").unwrap();
        let scoring: ScoringSpec =
            serde_saphyr::from_str("{root_cause: weighted, loop_threshold: 4}").unwrap();
        let s = StepSettings::from_spec(Some(&spec), Some(&scoring));
        assert_eq!(s.thresholds.get(StepType::Exec).to_bits(), 4.0f64.to_bits());
        assert_eq!(
            s.thresholds.get(StepType::ParamGen).to_bits(),
            2.5f64.to_bits()
        );
        assert_eq!(s.root_cause, RootCauseMode::Weighted);
        assert_eq!((s.redundancy_window, s.loop_threshold), (3, 4));
        assert_eq!(StepSettings::default().root_cause, RootCauseMode::Greedy);
    }
}
