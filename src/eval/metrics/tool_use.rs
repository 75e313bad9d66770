//! Tool-use metrics of one case, read off its DAG.
//!
//! A *tool call* is an EXEC node, or a PARAMGEN whose call never ran (no EXEC
//! child); calls are taken in node (time) order. Final-answer tools are SYNTH
//! steps, not calls.
//! - `failed_calls`: EXECs whose outcome is a failure ([`crate::dag::outcome`]);
//! - `redundant_calls`: calls repeating the tool and arguments of one of the
//!   previous `redundancy_window` calls, unless that earlier call failed (a
//!   retry is not redundant); calls whose arguments the trace does not
//!   record never count as repeats (here and for loops);
//! - `invalid_args`: calls whose arguments break the catalog schema;
//! - `missing_expected_tools`: the case's `expected_tools` never called;
//! - `unknown_tools`: tools called that the catalog lacks (only with a catalog);
//! - `loops`: runs of at least `loop_threshold` identical calls in a row;
//! - `steps`: model calls (distinct spans behind PLAN/TOOLSEL/SYNTH nodes).

use std::collections::BTreeSet;

use crate::dag::{Dag, Node, exec_outcome};
use crate::eval::steps::catalog::{ArgCheck, ToolCatalog};
use crate::eval::steps::settings::StepSettings;
use crate::model::run::ToolUse;
use crate::spec::model::StepType;
use crate::trace::SharedValue;

/// One call: its node, read when calls are compared (a copy of each call's
/// tool and arguments was a tenth of the peak memory of a large telemetry
/// trace; issue 25).
struct Call<'a> {
    node: &'a Node,
    failed: bool,
    invalid: bool,
}

impl Call<'_> {
    fn tool(&self) -> &str {
        self.node.tool().unwrap_or(&self.node.name)
    }

    /// The arguments, when the trace records them (repeats are only counted then).
    fn arguments(&self) -> Option<&SharedValue> {
        self.node.arguments.as_ref().filter(|a| !a.is_null())
    }

    /// The same tool with the same canonical arguments, both recorded.
    fn repeats(&self, other: &Call<'_>) -> bool {
        match (self.arguments(), other.arguments()) {
            (Some(a), Some(b)) => self.tool() == other.tool() && a.compact() == b.compact(),
            _ => false,
        }
    }
}

/// Compute the tool-use block of one case.
pub(crate) fn tool_use_metrics(
    dag: &Dag,
    catalog: &ToolCatalog,
    expected_tools: &[String],
    settings: &StepSettings,
) -> ToolUse {
    let mut calls: Vec<Call> = Vec::new();
    let null = SharedValue::default();
    for (i, node) in dag.nodes.iter().enumerate() {
        let is_call = match node.step_type {
            StepType::Exec => true,
            StepType::ParamGen => !dag
                .children(i)
                .any(|c| dag.nodes[c].step_type == StepType::Exec),
            _ => false,
        };
        if !is_call {
            continue;
        }
        let call = Call {
            node,
            failed: node.step_type == StepType::Exec && exec_outcome(node).is_failure(),
            invalid: false,
        };
        let args = node.arguments.as_ref().unwrap_or(&null);
        let invalid = matches!(
            catalog.validate_shared(call.tool(), Some(args)),
            ArgCheck::Invalid(_)
        );
        calls.push(Call { invalid, ..call });
    }

    let window = settings.redundancy_window;
    let redundant_calls = (0..calls.len())
        .filter(|&i| {
            let from = i.saturating_sub(window);
            calls[from..i]
                .iter()
                .any(|prev| prev.repeats(&calls[i]) && !prev.failed)
        })
        .count();

    let mut loops = 0;
    let mut run = 1;
    for i in 1..=calls.len() {
        if i < calls.len() && calls[i].repeats(&calls[i - 1]) {
            run += 1;
        } else {
            if run >= settings.loop_threshold {
                loops += 1;
            }
            run = 1;
        }
    }

    let called: BTreeSet<&str> = calls.iter().map(Call::tool).collect();
    let missing_expected_tools = expected_tools
        .iter()
        .filter(|t| !called.contains(t.as_str()))
        .cloned()
        .collect();
    let unknown_tools = if catalog.is_empty() {
        Vec::new()
    } else {
        called
            .iter()
            .filter(|t| !catalog.contains(t))
            .map(|t| (*t).to_owned())
            .collect()
    };
    let steps = dag
        .nodes
        .iter()
        .filter(|n| {
            matches!(
                n.step_type,
                StepType::Plan | StepType::ToolSel | StepType::Synth
            )
        })
        .filter_map(|n| n.span_id.as_deref())
        .collect::<BTreeSet<_>>()
        .len();

    ToolUse {
        tool_calls: calls.len(),
        failed_calls: calls.iter().filter(|c| c.failed).count(),
        redundant_calls,
        invalid_args: calls.iter().filter(|c| c.invalid).count(),
        missing_expected_tools,
        unknown_tools,
        loops,
        steps,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::dag::{Edge, EdgeKind, Node};
    use crate::model::run::DagStatus;
    use crate::spec::model::ToolSpec;

    fn exec(tool: &str, args: Value, error: bool) -> Node {
        let mut n = Node::new(StepType::Exec, tool);
        n.arguments = Some(args.into());
        n.output = Some(json!("ok").into());
        n.set_error(error.then(Box::default));
        n
    }

    #[test]
    fn counts_follow_their_definitions() {
        // calls: a(1) err, a(1) ok [retry, not redundant], a(1) ok [redundant], a(1) ok [redundant],
        //        b(x) ok, unexecuted PARAMGEN c({}) [invalid: missing `q`], a(2) ok
        let mut unexecuted = Node::new(StepType::ParamGen, "c");
        unexecuted.arguments = Some(json!({}).into());
        let mut model = Node::new(StepType::ToolSel, "a");
        model.span_id = Some("m1".into());
        let nodes = vec![
            model,
            exec("a", json!({"n": 1}), true),
            exec("a", json!({"n": 1}), false),
            exec("a", json!({"n": 1}), false),
            exec("a", json!({"n": 1}), false),
            exec("b", json!("x"), false),
            unexecuted,
            exec("a", json!({"n": 2}), false),
        ];
        let edges = vec![Edge::new(0, 1, EdgeKind::Call)];
        let dag = Dag::new(DagStatus::Dag, nodes, edges, Vec::new()).unwrap();
        let tools: Vec<ToolSpec> = serde_saphyr::from_str(
            "- {name: a}\n- {name: c, schema: {type: object, required: [q]}}\n",
        )
        .unwrap();
        let catalog = ToolCatalog::new(&tools).unwrap();
        let settings = StepSettings::default();
        let t = tool_use_metrics(&dag, &catalog, &["a".into(), "d".into()], &settings);
        assert_eq!(t.tool_calls, 7);
        assert_eq!(t.failed_calls, 1);
        assert_eq!(t.redundant_calls, 2);
        assert_eq!(t.invalid_args, 1);
        assert_eq!(t.missing_expected_tools, ["d"]);
        assert_eq!(t.unknown_tools, ["b"]);
        assert_eq!(
            t.loops, 1,
            "four identical a(1) calls in a row are one loop"
        );
        assert_eq!(t.steps, 1);
    }

    #[test]
    fn calls_with_unrecorded_arguments_are_never_repeats() {
        let mut nodes: Vec<Node> = (0..4)
            .map(|_| exec("terminal", Value::Null, false))
            .collect();
        nodes[3].arguments = None;
        let dag = Dag::new(DagStatus::Dag, nodes, Vec::new(), Vec::new()).unwrap();
        let t = tool_use_metrics(&dag, &ToolCatalog::empty(), &[], &StepSettings::default());
        assert_eq!((t.tool_calls, t.redundant_calls, t.loops), (4, 0, 0));
    }
}
