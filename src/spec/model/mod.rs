//! The suite file as users write it (`suites/<suite>/suite.yaml`, DESIGN §13).
//!
//! These types are the schema: `serde-saphyr` deserializes YAML straight into
//! them (unknown keys are errors), `schemars` generates `suite.schema.json`
//! from them, and [`crate::spec::validate`] checks what types cannot express.
//! IDs and matchers carry their YAML location (`Spanned`) so lint can point
//! at them. One file per concept: the suite's top level, checkpoints,
//! sequences, event matchers, gates, cases (with task success) and scoring.

pub(crate) mod cases;
mod checkpoint;
mod gates;
mod matchers;
mod scoring;
mod sequence;
pub(crate) mod suite;

pub use crate::model::vocab::{
    FailOn, InconclusivePolicy, RootCauseMode, Severity, StepType, UnevaluatedPolicy,
};
pub use cases::{CaseEntry, ExpectedOutput, TaskSpec, TaskSuccessSpec};
pub use checkpoint::{
    AppliesToSpec, AssertSpec, CheckpointSpec, EnvConstraintSpec, PartialCriterionSpec,
};
pub use gates::{AbsoluteGateSpec, GatesSpec, MetricGateSpec, SmokeTierSpec, TiersSpec};
pub use matchers::{CountRange, EventKind, EventMatcher, EventStatus, ToolPattern};
pub use scoring::{PartialMode, ScoringSpec, ThresholdsSpec};
pub use sequence::{CountSpec, NeverSpec, SequenceSpec, Since, SpannedMatcher, Until};
pub use suite::{
    AgentSpec, JudgeSpec, PriceSpec, SpannedString, StepTools, SuiteFile, ToolSpec, TrialsSpec,
    WorkflowSpec, WorkflowStepSpec,
};
