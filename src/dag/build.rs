//! Build the evaluation DAG from a trace's spans (DESIGN §5).
//!
//! One sweep over the spans in time order (`start`, then file position), so
//! every node is created after the nodes it depends on and every edge points
//! forward: node order is a topological order and the ids `s1…sN` are stable.
//!
//! - A model call (`SpanKind::Llm`) that requests tools gives one TOOLSEL node
//!   and one PARAMGEN node per call (TOOLSEL → PARAMGEN). A requested
//!   `final_answer`/`final_output` tool gives a SYNTH node instead.
//! - The first model call of an agent that states a plan, or any call marked
//!   as planning (`gen_ai.operation.name = plan`), adds a PLAN node in front.
//! - A model call with no tool calls is SYNTH when it ends its agent's turn
//!   (last call of the agent, or followed by a user turn or another agent),
//!   and PLAN otherwise (intermediate reasoning the agent continues from).
//! - A tool span is an EXEC node depending on the PARAMGEN of the call it
//!   executes: matched by call id (ids may repeat: the oldest unexecuted call
//!   with that id wins; an id whose call already ran is a re-execution of it),
//!   else by order among unexecuted calls of the same tool (equal arguments
//!   first); the adapter's `requested_by` attribute narrows the candidates
//!   to one model span's calls ([`super::calls`]). A tool span no model call requested gets a *synthetic* PARAMGEN
//!   built from the span's own arguments, so its arguments are still checked;
//!   when `requested_by` names a model span that requested no tool (a chat's
//!   code executor running the code of an earlier message), that PARAMGEN
//!   belongs to the requesting span and its agent, after its step.
//! - Data edges: a model step depends on the agent's previous model step, on
//!   the EXECs whose results it read (by call id in its input messages, else
//!   every EXEC since the agent's previous model step), on the last step of
//!   each sub-agent that ran since then, and — for its first step — on its
//!   caller's latest step (or, with no caller, the latest step of any other
//!   agent: a hand-off). In a multi-agent chat every step also reads the
//!   latest turn of the other speakers since its own previous turn.
//!
//! Then retries are unrolled ([`super::retry`]). The trace falls back to a
//! flat list (`flat_fallback`, no edges) when no DAG can be built: the spans'
//! parent links form a cycle (agents and nesting are then unknowable), a
//! retry loop exceeds the unroll cap, or the trace has no model or tool spans.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::agents::AgentIndex;
use super::calls::{Execution, PendingCalls, Request};
use super::classify::{
    answer_of, ends_turn, is_final_tool, is_plan_span, mark_final_answer, span_error, states_plan,
};
use super::graph::Dag;
use super::model::{Edge, EdgeKind, Node};
use super::retry::{Unrolled, unroll_retries};
use super::scan::StepScan;
use super::span_ids::SpanIds;
use crate::model::ShortText;
use crate::model::run::DagStatus;
use crate::spec::model::StepType;
use crate::trace::model::{SharedValue, Span, SpanKind, ToolCall, Trace, TraceFormat};

/// The tool-span attribute chat adapters set to the id of the model span
/// that requested the execution (`Span::REQUESTED_BY` in the trace model).
const REQUESTED_BY: &str = "requested_by";

/// Choices the trace alone cannot make.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BuildOptions {
    /// The suite's workflow schema has a PLAN step: the first model call of
    /// each top-level agent plans (gets a PLAN node) whether or not its text
    /// reads like a plan — unless it is the agent's only, tool-free answer.
    pub first_call_plans: bool,
}

/// Build the evaluation DAG of `trace`. Never fails: what cannot be built as
/// a DAG is returned flat, with the reason in [`Dag::notes`].
pub fn build_dag(trace: &Trace) -> Dag {
    build_dag_with(trace, BuildOptions::default())
}

/// [`build_dag`] with options.
pub fn build_dag_with(trace: &Trace, options: BuildOptions) -> Dag {
    let index = AgentIndex::new(trace);
    let mut order: Vec<usize> = (0..trace.spans.len()).collect();
    order.sort_by_key(|&i| trace.spans[i].order_key());

    let mut last_model_call: BTreeMap<String, usize> = BTreeMap::new();
    for (pos, &i) in order.iter().enumerate() {
        if trace.spans[i].kind == SpanKind::Llm {
            last_model_call.insert(index.agent(i).to_owned(), pos);
        }
    }
    let scan = StepScan::new(trace, &index, &order);
    let mut builder = Builder {
        trace,
        last_model_call,
        index: &index,
        scan: &scan,
        order: &order,
        nodes: Vec::new(),
        edges: Vec::new(),
        agents: BTreeMap::new(),
        pending: PendingCalls::default(),
        transcript: trace.format == TraceFormat::MultiAgentChat,
        options,
        span_ids: SpanIds::new(&trace.spans),
    };
    for (pos, &i) in order.iter().enumerate() {
        let span = &trace.spans[i];
        match span.kind {
            SpanKind::Llm => builder.model_call(pos, i),
            SpanKind::Tool | SpanKind::Retriever => builder.tool_span(i),
            _ if span.tool.is_some() => builder.tool_span(i),
            _ => {}
        }
    }
    let (mut nodes, mut edges) = builder.into_parts();
    mark_final_answer(&mut nodes, &index);
    // What the build read goes before the graph is made: on a large trace
    // the indexes by span and agent are tens of MB at the peak (issue 25).
    let cycle_at = index.cycle_at.clone();
    drop((scan, index, order));

    if let Some(at) = &cycle_at {
        return Dag::flat(
            nodes,
            format!("span parent links form a cycle at `{at}`, so agents and nesting are unknown"),
        );
    }
    if nodes.is_empty() {
        return Dag::flat(
            nodes,
            "the trace has no model or tool spans, so there are no steps to connect".to_owned(),
        );
    }
    let mut notes = Vec::new();
    let status = match unroll_retries(&mut nodes, &mut edges) {
        Unrolled::None => DagStatus::Dag,
        Unrolled::Chains(described) => {
            notes.extend(described);
            DagStatus::Unrolled
        }
        Unrolled::Overflow(reason) => return Dag::flat(nodes, reason),
    };
    match Dag::try_new(status, nodes, edges, notes) {
        Ok(dag) => dag,
        Err((e, nodes)) => Dag::flat(nodes, format!("the inferred edges are not a DAG ({e})")),
    }
}

#[derive(Default)]
struct AgentState {
    /// The last node of the agent's previous model call.
    last_model: Option<usize>,
    model_calls: usize,
    /// `nodes.len()` when the agent's previous step read its inputs: other
    /// agents' steps from here on are news to it.
    mark: usize,
    /// EXECs whose results no model call of the agent has read yet.
    unread: Vec<usize>,
    last_node: Option<usize>,
}

struct Builder<'a> {
    trace: &'a Trace,
    index: &'a AgentIndex,
    scan: &'a StepScan,
    order: &'a [usize],
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    agents: BTreeMap<String, AgentState>,
    pending: PendingCalls,
    transcript: bool,
    options: BuildOptions,
    /// Agent → position (in `order`) of its last model call.
    last_model_call: BTreeMap<String, usize>,
    /// Span id → index (the first span with that id).
    span_ids: SpanIds,
}

impl Builder<'_> {
    /// The nodes and edges made, everything else dropped.
    fn into_parts(self) -> (Vec<Node>, Vec<Edge>) {
        (self.nodes, self.edges)
    }

    fn last_of_agent(&self, agent: &str, pos: usize) -> bool {
        self.last_model_call
            .get(agent)
            .is_none_or(|&last| last <= pos)
    }

    fn push(
        &mut self,
        mut node: Node,
        span: &Span,
        agent: &str,
        parents: &[(usize, EdgeKind)],
    ) -> usize {
        node.span_id = Some(span.id.clone());
        node.agent = (!agent.is_empty()).then(|| agent.into());
        let idx = self.nodes.len();
        self.nodes.push(node);
        for &(from, kind) in parents {
            self.edges.push(Edge::new(from, idx, kind));
        }
        self.agents.entry(agent.to_owned()).or_default().last_node = Some(idx);
        idx
    }

    /// What a new step of `agent` reads: see the module docs. Consumes the EXECs it reads.
    fn step_inputs(&mut self, agent: &str, span: &Span) -> Vec<(usize, EdgeKind)> {
        let read_ids: BTreeSet<&str> = span
            .input_messages
            .iter()
            .filter_map(|m| m.tool_call_id.as_deref())
            .collect();
        let nodes = &self.nodes;
        let state = self.agents.entry(agent.to_owned()).or_default();
        let mut out: Vec<(usize, EdgeKind)> = Vec::new();
        if let Some(prev) = state.last_model {
            out.push((prev, EdgeKind::Flow));
        }
        let (read, unread): (Vec<usize>, Vec<usize>) = state.unread.iter().partition(|&&e| {
            read_ids.is_empty()
                || nodes[e]
                    .call_id
                    .as_deref()
                    .is_none_or(|id| read_ids.contains(id))
        });
        state.unread = unread;
        out.extend(read.into_iter().map(|e| (e, EdgeKind::Result)));
        let mark = state.mark;
        // From now on the agent has read everything that exists.
        state.mark = nodes.len();
        let first = state.last_node.is_none();

        let mut latest_other: Option<usize> = None;
        for (other, st) in &self.agents {
            let Some(last) = st.last_node else { continue };
            if other == agent || last < mark {
                continue;
            }
            if self.index.caller(other) == Some(agent) {
                out.push((last, EdgeKind::Agent));
            } else if self.transcript {
                latest_other = latest_other.max(Some(last));
            }
        }
        out.extend(latest_other.map(|n| (n, EdgeKind::Agent)));
        if first && out.is_empty() {
            let caller_last = self
                .index
                .caller(agent)
                .and_then(|c| self.agents.get(c))
                .and_then(|s| s.last_node);
            let handoff = caller_last.or_else(|| self.nodes.len().checked_sub(1));
            out.extend(handoff.map(|n| (n, EdgeKind::Agent)));
        }
        out
    }

    /// The span (by id) a tool span's `requested_by` names, when it is a
    /// model call that already has a step: its index and that step.
    fn requester(&self, requested_by: Option<&str>) -> Option<(usize, usize)> {
        let id = requested_by?;
        let j = self.span_ids.first(&self.trace.spans, id)?;
        if self.trace.spans[j].kind != SpanKind::Llm {
            return None;
        }
        let step = self
            .nodes
            .iter()
            .rposition(|n| !n.synthetic && n.span_id.as_deref() == Some(id))?;
        Some((j, step))
    }

    fn model_call(&mut self, pos: usize, i: usize) {
        let trace = self.trace;
        let span = &trace.spans[i];
        let agent = self.index.agent(i).to_owned();
        let calls: Vec<&ToolCall> = span.requested_tool_calls().collect();
        let (finals, tools): (Vec<&ToolCall>, Vec<&ToolCall>) =
            calls.into_iter().partition(|c| is_final_tool(&c.name));
        let text = span.output_text();
        let first_call = self.agents.get(&agent).is_none_or(|s| s.model_calls == 0);
        let mapped = first_call
            && self.options.first_call_plans
            && self.index.caller(&agent).is_none()
            && (!tools.is_empty() || !self.last_of_agent(&agent, pos));
        let planned = is_plan_span(span)
            || mapped
            || (first_call && text.as_deref().is_some_and(states_plan));

        let inputs = self.step_inputs(&agent, span);
        let mut head: Option<usize> = None;
        let mut last: Option<usize> = None;
        let text_value: Option<SharedValue> = text.clone().map(|t| Value::String(t).into());
        if planned {
            let mut node = Node::new(StepType::Plan, span.name.clone());
            node.output.clone_from(&text_value);
            node.set_error(span_error(span));
            let p = self.push(node, span, &agent, &inputs);
            head = Some(p);
            last = Some(p);
        }
        let lead: Vec<(usize, EdgeKind)> =
            head.map_or_else(|| inputs.clone(), |h| vec![(h, EdgeKind::Flow)]);
        if !tools.is_empty() {
            let names: Vec<ShortText> = tools.iter().map(|c| c.name.clone()).collect();
            let mut node = Node::new(StepType::ToolSel, names.join(", "));
            node.output = Some(
                Value::Array(names.iter().map(|n| Value::String(n.to_string())).collect()).into(),
            );
            node.tools = names.into();
            node.set_error(span_error(span));
            let t = self.push(node, span, &agent, &lead);
            for call in &tools {
                let mut node = Node::new(StepType::ParamGen, call.name.clone());
                node.call_id.clone_from(&call.id);
                let args: SharedValue = call.arguments.clone();
                node.arguments = Some(args.clone());
                node.output = Some(args.clone());
                let pg = self.push(node, span, &agent, &[(t, EdgeKind::Call)]);
                self.pending.request(Request {
                    span: &span.id,
                    agent: &agent,
                    call_id: call.id.clone(),
                    tool: &call.name,
                    args,
                    paramgen: pg,
                });
            }
            last = Some(t);
        }
        for call in &finals {
            let mut node = Node::new(StepType::Synth, call.name.clone());
            node.call_id.clone_from(&call.id);
            node.output = Some(answer_of(&call.arguments.value()).into());
            last = Some(self.push(node, span, &agent, &lead));
            self.pending.request_final(call.id.clone());
        }
        if last.is_none() {
            let ends = ends_turn(trace, self.index, self.scan, self.order, pos)
                || self.last_of_agent(&agent, pos);
            let step_type = if ends {
                StepType::Synth
            } else {
                StepType::Plan
            };
            let mut node = Node::new(step_type, span.name.clone());
            node.output = text_value;
            node.set_error(span_error(span));
            last = Some(self.push(node, span, &agent, &inputs));
        }
        let state = self.agents.entry(agent).or_default();
        state.last_model = last;
        state.model_calls += 1;
    }

    fn tool_span(&mut self, i: usize) {
        let span = &self.trace.spans[i];
        let agent = self.index.agent(i).to_owned();
        let (name, call_id, args, result) = match &span.tool {
            Some(t) => (
                t.name.clone(),
                t.call_id.clone(),
                t.arguments.clone(),
                t.result.clone(),
            ),
            None => (
                span.name.clone(),
                None,
                span.input.clone().map(Into::into),
                span.output.clone().map(Into::into),
            ),
        };
        let result = result.or_else(|| span.output.clone().map(Into::into));

        if is_final_tool(&name) {
            // The answer was already taken from the model's request when there was one.
            if !self.pending.execute_final(call_id.as_deref()) {
                let inputs = self.step_inputs(&agent, span);
                let mut node = Node::new(StepType::Synth, name);
                node.call_id = call_id;
                node.output = args
                    .as_ref()
                    .map(|a| answer_of(&a.value()).into())
                    .or(result);
                self.push(node, span, &agent, &inputs);
            }
            return;
        }

        let execution = Execution {
            agent: &agent,
            call_id: call_id.as_deref(),
            tool: &name,
            args: args.as_ref(),
            requested_by: span
                .attributes
                .get(REQUESTED_BY)
                .and_then(crate::trace::AttrValue::as_str),
        };
        let matched = self
            .pending
            .execute(&execution)
            .map(|p| (p.paramgen, p.agent.clone(), p.args.clone()));
        let (paramgen, owner, args) = if let Some((paramgen, owner, requested)) = matched {
            (paramgen, owner, args.or(Some(requested)))
        } else {
            let mut node = Node::new(StepType::ParamGen, name.clone());
            node.call_id.clone_from(&call_id);
            node.arguments.clone_from(&args);
            node.output.clone_from(&args);
            node.synthetic = true;
            // When the arguments came from another agent's turn (a chat's
            // code executor runs the code of the message before it), the
            // PARAMGEN is that turn's, so a failure charged to it lands on
            // the agent that wrote the arguments.
            let paramgen = if let Some((requester, from)) = self.requester(execution.requested_by) {
                let requester_id = self.trace.spans[requester].id.clone();
                let requester_agent = self.index.agent(requester).to_owned();
                let pg = self.push(node, span, &requester_agent, &[(from, EdgeKind::Call)]);
                self.nodes[pg].span_id = Some(requester_id);
                pg
            } else {
                let inputs = self.step_inputs(&agent, span);
                self.push(node, span, &agent, &inputs)
            };
            (paramgen, agent.clone(), args)
        };
        let mut node = Node::new(StepType::Exec, name.clone());
        node.call_id = call_id.or_else(|| self.nodes[paramgen].call_id.clone());
        node.arguments = args;
        node.output = result;
        node.set_error(span_error(span));
        node.set_error_type(["error.type", "exception.type"].iter().find_map(|k| {
            span.attributes
                .get(*k)
                .and_then(|v| v.as_str())
                .map(Box::from)
        }));
        let exec = self.push(node, span, &owner, &[(paramgen, EdgeKind::Call)]);
        self.agents.entry(owner).or_default().unread.push(exec);
    }
}
