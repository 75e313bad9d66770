//! The evaluation DAG's node and edge types (DESIGN §5); the graph itself
//! lives in [`super::graph`].

use crate::model::ShortText;
use crate::trace::SharedValue;
use serde::Serialize;
use thin_vec::ThinVec;

use crate::spec::model::StepType;

/// One agent step.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// `s1`, `s2`, … assigned by [`Dag::new`] from the node's position.
    pub id: ShortText,
    pub step_type: StepType,
    /// Human label: the tool for TOOLSEL/PARAMGEN/EXEC, the span name otherwise.
    pub name: ShortText,
    /// The agent the step belongs to (`None` for the unnamed top-level agent).
    pub agent: Option<ShortText>,
    /// The span the step was read from.
    pub span_id: Option<ShortText>,
    /// TOOLSEL: every tool selected by the model call, in call order.
    pub tools: ThinVec<ShortText>,
    /// The tool call id the step belongs to, when the format records one.
    pub call_id: Option<ShortText>,
    /// PARAMGEN/EXEC: the call's arguments.
    pub arguments: Option<SharedValue>,
    /// What the step produced: the model's text (PLAN, SYNTH), the tool
    /// result (EXEC), the arguments (PARAMGEN), the selected tools (TOOLSEL).
    pub output: Option<SharedValue>,
    /// How the step failed, when its span says so: behind one pointer, as
    /// most steps did not (issue 25). Read with [`Node::error`] and
    /// [`Node::error_type`].
    failure: Option<Box<NodeFailure>>,
    /// Retry chain position when this EXEC is one of several attempts.
    pub attempt: Option<Attempt>,
    /// An earlier failed attempt superseded by a retry: reported, never propagated.
    pub compensated: bool,
    /// The SYNTH node that answers the run.
    pub final_answer: bool,
    /// A PARAMGEN reconstructed from a tool span no model call requested.
    pub synthetic: bool,
}

impl Node {
    /// A node with only its type and name set.
    pub fn new(step_type: StepType, name: impl Into<ShortText>) -> Self {
        Self {
            id: ShortText::default(),
            step_type,
            name: name.into(),
            agent: None,
            span_id: None,
            tools: ThinVec::new(),
            call_id: None,
            arguments: None,
            output: None,
            failure: None,
            attempt: None,
            compensated: false,
            final_answer: false,
            synthetic: false,
        }
    }
}

impl Node {
    /// PARAMGEN and EXEC: the tool called (the step's name). TOOLSEL: the
    /// first tool selected. Read from the name and the selected tools
    /// instead of kept as a copy of either (issue 25).
    pub fn tool(&self) -> Option<&str> {
        match self.step_type {
            StepType::ParamGen | StepType::Exec => Some(&self.name),
            StepType::ToolSel => self.tools.first().map(ShortText::as_str),
            StepType::Plan | StepType::Synth => None,
        }
    }

    /// Set when the span's status is `error`: its message (or an empty string).
    pub fn error(&self) -> Option<&str> {
        self.failure.as_ref()?.error.as_deref()
    }

    /// Span attributes that tell how it failed (`error.type`, …), kept for scorers.
    pub fn error_type(&self) -> Option<&str> {
        self.failure.as_ref()?.error_type.as_deref()
    }

    pub fn set_error(&mut self, error: Option<Box<str>>) {
        if error.is_some() || self.failure.is_some() {
            self.failure_mut(|f| f.error = error);
        }
    }

    pub fn set_error_type(&mut self, error_type: Option<Box<str>>) {
        // Clearing what is not set makes no box: the DAG build sets every node, most to `None`.
        if error_type.is_some() || self.failure.is_some() {
            self.failure_mut(|f| f.error_type = error_type);
        }
    }

    fn failure_mut(&mut self, edit: impl FnOnce(&mut NodeFailure)) {
        let mut failure = self.failure.take().unwrap_or_default();
        edit(&mut failure);
        if failure.error.is_some() || failure.error_type.is_some() {
            self.failure = Some(failure);
        }
    }
}

/// [`Node::error`] and [`Node::error_type`].
#[derive(Debug, Clone, Default, PartialEq)]
struct NodeFailure {
    error: Option<Box<str>>,
    error_type: Option<Box<str>>,
}

/// Where an EXEC sits in an unrolled retry chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Attempt {
    /// 1-based attempt number.
    pub number: u32,
    /// Attempts in the chain; the last one is canonical.
    pub of: u32,
}

/// Why two steps are connected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    /// The previous model call of the same agent, or a PLAN to the step it plans.
    Flow,
    /// TOOLSEL → PARAMGEN → EXEC of one tool call.
    Call,
    /// A tool result read by a later model call.
    Result,
    /// Attempt k → attempt k+1 of an unrolled retry.
    Retry,
    /// Between agents: a caller's input to a sub-agent, a sub-agent's result
    /// to its caller, a hand-off, or a shared chat transcript.
    Agent,
}

impl EdgeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Flow => "flow",
            Self::Call => "call",
            Self::Result => "result",
            Self::Retry => "retry",
            Self::Agent => "agent",
        }
    }
}

/// A directed edge between node indices: `from` must happen before `to`.
/// The indices are kept as `u32` (12 bytes an edge, not 24: a file under
/// any read cap has fewer than 2^32 steps, issue 25); read them with
/// [`Edge::from`] and [`Edge::to`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Edge {
    from: u32,
    to: u32,
    pub kind: EdgeKind,
}

impl Edge {
    /// An edge from node `from` to node `to`. An index past `u32::MAX`
    /// is kept as `u32::MAX`, which [`crate::dag::Dag::new`] refuses as a
    /// node it does not have.
    pub fn new(from: usize, to: usize, kind: EdgeKind) -> Self {
        let index = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
        Self {
            from: index(from),
            to: index(to),
            kind,
        }
    }

    /// The index of the node the edge leaves.
    pub fn from(&self) -> usize {
        self.from as usize
    }

    /// The index of the node the edge enters.
    pub fn to(&self) -> usize {
        self.to as usize
    }
}
