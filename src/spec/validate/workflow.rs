//! Workflow schema checks: unique step ids, known `after` references,
//! tools in the catalog, no cycles, and a warning for a workflow that names
//! only some of the catalog's tools without saying whether it is exhaustive.

use std::collections::{BTreeMap, BTreeSet};

use crate::spec::model::StepType;

use super::catalog::Catalog;
use super::context::{Ctx, loc};

/// Returns the step ids.
pub(super) fn validate(cx: &mut Ctx<'_>, tools: &Catalog) -> BTreeSet<String> {
    let loaded = cx.loaded;
    let Some(workflow) = &loaded.file.workflow else {
        return BTreeSet::new();
    };
    let mut ids: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, step) in workflow.steps.iter().enumerate() {
        if ids.insert(step.id.value.as_str(), i).is_some() {
            cx.error(
                loc(&step.id),
                format!("duplicate workflow step id `{}`", step.id.value),
                "step ids are unique",
            );
        }
    }
    for step in &workflow.steps {
        for dep in &step.after {
            if !ids.contains_key(dep.value.as_str()) {
                cx.error(
                    loc(dep),
                    format!(
                        "step `{}` comes after unknown step `{}`",
                        step.id.value, dep.value
                    ),
                    "`after` lists ids of other steps under `workflow.steps`",
                );
            }
        }
        match (&step.tool, step.step_type) {
            (Some(names), _) => {
                for tool in names.names().iter().filter(|t| !tools.contains(t)) {
                    cx.error(
                        loc(&step.id),
                        format!(
                            "workflow step `{}` uses tool `{tool}`, which is not in the `tools:` catalog",
                            step.id.value
                        ),
                        format!("add `- name: {tool}` to `tools:`, or fix the name"),
                    );
                }
                if names.names().is_empty() {
                    cx.error(
                        loc(&step.id),
                        format!("workflow step `{}` has an empty `tool` list", step.id.value),
                        "name one tool, or a list of alternatives: `tool: [a, b]`",
                    );
                }
            }
            (None, StepType::Exec | StepType::ParamGen) => cx.warning(
                loc(&step.id),
                format!(
                    "{} step `{}` names no `tool`; it matches any tool call",
                    step.step_type, step.id.value
                ),
                "add `tool:` to pin the step to one tool",
            ),
            _ => {}
        }
    }
    partial(cx, workflow, tools);
    if let Some(cycle) = find_cycle(workflow, &ids) {
        let first = &workflow.steps[cycle[0]];
        let names: Vec<&str> = cycle
            .iter()
            .map(|&i| workflow.steps[i].id.value.as_str())
            .collect();
        cx.error(
            loc(&first.id),
            format!(
                "the workflow has a cycle: {} → {}",
                names.join(" → "),
                names[0]
            ),
            "a workflow is a DAG: remove one of the `after` links in the cycle",
        );
    }
    ids.into_keys().map(str::to_owned).collect()
}

/// A workflow that names some of the catalog's tools but not all, with no
/// `exhaustive:`: say what that means (other tools may be called), since a
/// reader could take the list either way.
fn partial(cx: &mut Ctx<'_>, workflow: &crate::spec::model::WorkflowSpec, tools: &Catalog) {
    let Some(first) = workflow.steps.first() else {
        return;
    };
    if workflow.exhaustive.is_some() {
        return;
    }
    let named: BTreeSet<&str> = workflow
        .steps
        .iter()
        .filter_map(|s| s.tool.as_ref())
        .flat_map(|t| t.names().iter().map(String::as_str))
        .filter(|t| tools.contains(t))
        .collect();
    if named.is_empty() {
        return;
    }
    let unnamed: Vec<&str> = tools.names().filter(|t| !named.contains(t)).collect();
    if unnamed.is_empty() {
        return;
    }
    let shown: Vec<String> = unnamed.iter().take(3).map(|t| format!("`{t}`")).collect();
    let more = if unnamed.len() > 3 {
        format!(" and {} more", unnamed.len() - 3)
    } else {
        String::new()
    };
    cx.warning(
        loc(&first.id),
        format!(
            "the workflow names {} of the {} catalog tools and does not say whether it is exhaustive (not named: {}{more}); calls of tools it does not name are allowed",
            named.len(),
            named.len() + unnamed.len(),
            shown.join(", ")
        ),
        "add `exhaustive: false` under `workflow:` to keep this, or `exhaustive: true` to make every call of a tool no step names a deviation",
    );
}

/// Depth-first search over `after` edges; returns one cycle as step indices.
fn find_cycle(
    workflow: &crate::spec::model::WorkflowSpec,
    ids: &BTreeMap<&str, usize>,
) -> Option<Vec<usize>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Active,
        Done,
    }
    let n = workflow.steps.len();
    let deps: Vec<Vec<usize>> = workflow
        .steps
        .iter()
        .map(|s| {
            s.after
                .iter()
                .filter_map(|d| ids.get(d.value.as_str()).copied())
                .collect()
        })
        .collect();
    let mut mark = vec![Mark::New; n];
    for start in 0..n {
        if mark[start] != Mark::New {
            continue;
        }
        // Iterative DFS with an explicit path stack.
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        mark[start] = Mark::Active;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&dep) = deps[node].get(*next) {
                *next += 1;
                match mark[dep] {
                    Mark::Active => {
                        let pos = stack.iter().position(|&(n, _)| n == dep).unwrap_or(0);
                        return Some(stack[pos..].iter().map(|&(n, _)| n).rev().collect());
                    }
                    Mark::New => {
                        mark[dep] = Mark::Active;
                        stack.push((dep, 0));
                    }
                    Mark::Done => {}
                }
            } else {
                mark[node] = Mark::Done;
                stack.pop();
            }
        }
    }
    None
}
