//! The evaluation DAG: step nodes built from the span model, retries
//! unrolled, schema workflows matched, root causes attributed, and Mermaid /
//! JSON views (DESIGN §5). Pure and synchronous.

mod adjacency;
mod agents;
mod build;
mod calls;
mod classify;
pub(crate) mod graph;
pub(crate) mod model;
pub(crate) mod outcome;
pub(crate) mod rca;
mod retry;
mod scan;
mod span_ids;
pub(crate) mod view;
pub(crate) mod workflow;

pub use build::{BuildOptions, build_dag, build_dag_with};
pub use graph::{Dag, DagError};
pub use model::{Attempt, Edge, EdgeKind, Node};
pub use outcome::{ExecOutcome, FailureOrigin, exec_outcome, failure_origin};
pub use rca::{
    Attribution, InputCharge, NodeVerdict, attribute_root_causes, attribute_root_causes_by,
    decisive_root, input_charges, workflow_quality,
};
pub use retry::MAX_ATTEMPTS;
pub use view::{DagView, ScoredSteps, render_mermaid, render_mermaid_case};
pub use workflow::{WorkflowMatch, match_workflow};
