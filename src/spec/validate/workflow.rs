//! Workflow schema checks: unique step ids, known `after` references,
//! tools in the catalog, and no cycles.

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
            (Some(tool), _) if !tools.contains(tool) => cx.error(
                loc(&step.id),
                format!(
                    "workflow step `{}` uses tool `{tool}`, which is not in the `tools:` catalog",
                    step.id.value
                ),
                format!("add `- name: {tool}` to `tools:`, or fix the name"),
            ),
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
