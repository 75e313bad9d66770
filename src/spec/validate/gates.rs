//! `gates:`, `thresholds:` and `agent:` settings: ranges (the statistics
//! settings' ranges are defined once, in `compare::settings`), metric names
//! that exist, and `min_effect`/absolute bounds inside each metric's domain.
//! Every error points at the key or value it is about.

use std::collections::BTreeSet;

use serde_saphyr::Location;

use crate::spec::model::StepType;

use crate::model::metric::metric_domain;
use crate::model::metric_id::MetricId;

use crate::env_policy::EnvClass;

use super::SUITE_METRICS;

use super::context::{Ctx, did_you_mean, loc};
use super::locations::Locations;

pub(super) fn thresholds(cx: &mut Ctx<'_>, locs: &Locations) {
    let Some(t) = &cx.loaded.file.thresholds else {
        return;
    };
    let values = [
        (StepType::Plan, t.plan),
        (StepType::ToolSel, t.toolsel),
        (StepType::ParamGen, t.paramgen),
        (StepType::Exec, t.exec),
        (StepType::Synth, t.synth),
    ];
    for (step_type, value) in values {
        if let Some(v) = value
            && !(1.0..=5.0).contains(&v)
        {
            let at = locs
                .threshold(step_type.as_str())
                .unwrap_or(loc(&cx.loaded.file.suite));
            cx.error(
                at,
                format!("threshold for {step_type} is {v}; step scores run from 1 to 5"),
                "set `thresholds` values between 1.0 and 5.0",
            );
        }
    }
}

pub(super) fn gates(
    cx: &mut Ctx<'_>,
    locs: &Locations,
    checkpoint_ids: &BTreeSet<String>,
    workflow_steps: &BTreeSet<String>,
) {
    let Some(g) = cx.loaded.file.gates.clone() else {
        return;
    };
    let suite_at = loc(&cx.loaded.file.suite);
    // Ranges of the statistics settings, `min_effect` and absolute bounds
    // inside each metric's domain: one definition, shared with `compare`;
    // here each problem is placed at the key it is about.
    for problem in crate::spec::gates::gate_problems(&g) {
        cx.error(
            problem_at(locs, &problem.key).unwrap_or(suite_at),
            format!("`{}` {}", problem.key, problem.message),
            "see the `gates:` section of docs/suites.md for each setting's range",
        );
    }
    let entry_at = |section: &str, name: &str, field: Option<&str>| {
        locs.gate_entry(section, name, field).unwrap_or(suite_at)
    };
    let names: Vec<(String, &str)> = g
        .metrics
        .keys()
        .map(|k| (k.clone(), "metrics"))
        .chain(g.absolute.keys().map(|k| (k.clone(), "absolute")))
        .collect();
    for (name, section) in names {
        if let Err(why) = known_metric(&name, checkpoint_ids, workflow_steps) {
            cx.error(
                entry_at(section, &name, None),
                format!("`gates.{section}` names unknown metric `{name}`: {why}"),
                format!(
                    "metric names are {}, `checkpoint:<id>`, `step_type:<PLAN|TOOLSEL|PARAMGEN|EXEC|SYNTH>`, `step:<workflow step id>`",
                    SUITE_METRICS.join(", ")
                ),
            );
        }
    }
    for id in &g.may_be_vacuous {
        if !checkpoint_ids.contains(id) {
            let close = super::context::did_you_mean(id, checkpoint_ids.iter().map(String::as_str));
            cx.error(
                locs.gate_field("may_be_vacuous").unwrap_or(suite_at),
                format!("`gates.may_be_vacuous` names unknown checkpoint `{id}`{close}"),
                "list ids of this suite's checkpoints: each may then be checked on one side of a comparison only",
            );
        }
    }
    // Bounds no run can breach: allowed, but they gate nothing.
    for (name, gate) in &g.absolute {
        let (lo, hi) = metric_domain(name);
        if !lo.is_finite() {
            continue;
        }
        for (which, value, never) in [
            ("min", gate.min, gate.min.is_some_and(|v| v <= lo)),
            ("max", gate.max, gate.max.is_some_and(|v| v >= hi)),
        ] {
            if let (Some(v), true) = (value, never) {
                cx.warning(
                    entry_at("absolute", name, Some(which)),
                    format!(
                        "`gates.absolute.{name}.{which}` is {v}, at the edge of `{name}`'s range [{lo}, {hi}]: no run can breach it"
                    ),
                    "tighten it or remove it",
                );
            }
        }
    }
}

/// A suite with fewer cases than the paired test needs can never confirm a regression of a
/// gating metric: a change is at best `inconclusive`. Said at lint time, with the numbers.
pub(super) fn tier_size(cx: &mut Ctx<'_>) {
    let g = cx.loaded.file.gates.clone().unwrap_or_default();
    let alpha = g.alpha.unwrap_or(crate::spec::gates::DEFAULT_ALPHA);
    let min_cases = g.min_cases.unwrap_or(crate::spec::gates::DEFAULT_MIN_CASES);
    let needed = crate::stats::needed_changed(alpha).max(min_cases);
    let n = cx.loaded.cases.len();
    if n == 0 || n >= needed {
        return;
    }
    cx.warning(
        loc(&cx.loaded.file.suite),
        format!(
            "the suite has {n} case{}: no gating metric can reach α = {alpha} (the paired test needs at least {needed} cases, {} of them changed in one direction); a regression here is reported as `inconclusive`, never confirmed",
            if n == 1 { "" } else { "s" },
            crate::stats::needed_changed(alpha)
        ),
        format!("add cases (at least {needed}), or run each case several times (`agent.trials`); `gates.inconclusive: warn` keeps such a result from failing the build"),
    );
}

/// Where the key of a [`crate::spec::gates::GateProblem`] was written:
/// `gates.<setting>`, `gates.metrics.<metric>.min_effect`,
/// `gates.absolute.<metric>[.min|.max]`.
fn problem_at(locs: &Locations, key: &str) -> Option<Location> {
    if let Some(rest) = key.strip_prefix("gates.metrics.") {
        let (name, field) = rest.rsplit_once('.')?;
        return locs.gate_entry("metrics", name, Some(field));
    }
    if let Some(rest) = key.strip_prefix("gates.absolute.") {
        return match rest.rsplit_once('.') {
            Some((name, field @ ("min" | "max"))) => locs.gate_entry("absolute", name, Some(field)),
            _ => locs.gate_entry("absolute", rest, None),
        };
    }
    locs.gate_field(key.strip_prefix("gates.")?)
}

/// Whether `name` is a metric this suite can produce.
fn known_metric(
    name: &str,
    checkpoint_ids: &BTreeSet<String>,
    workflow_steps: &BTreeSet<String>,
) -> Result<(), String> {
    if name.starts_with("judge:") {
        return Ok(());
    }
    match MetricId::parse(name) {
        MetricId::Suite(_) => Ok(()),
        MetricId::Checkpoint(id) => {
            if checkpoint_ids.contains(&id) {
                Ok(())
            } else {
                Err(format!(
                    "no checkpoint `{id}`{}",
                    did_you_mean(&id, checkpoint_ids.iter().map(String::as_str))
                ))
            }
        }
        MetricId::StepType(t) => {
            if StepType::ALL.iter().any(|s| s.as_str() == t) {
                Ok(())
            } else {
                Err(format!("no step type `{t}`"))
            }
        }
        MetricId::Step(step) => {
            if workflow_steps.contains(&step) {
                Ok(())
            } else {
                Err(format!("no workflow step `{step}`"))
            }
        }
        MetricId::Gpa(d) => {
            let dims = crate::model::trace_judges::GPA_DIMENSIONS.map(|(n, _)| n);
            if dims.contains(&d.as_str()) {
                Ok(())
            } else {
                Err(format!(
                    "no GPA dimension `{d}` (they are {})",
                    dims.join(", ")
                ))
            }
        }
        MetricId::Other(_) => Err(format!(
            "not a metric{}",
            did_you_mean(name, SUITE_METRICS.iter().copied())
        )),
    }
}

pub(super) fn agent(cx: &mut Ctx<'_>, locs: &Locations) {
    let file = &cx.loaded.file;
    let suite_at = loc(&file.suite);
    let Some(agent) = &file.agent else {
        return;
    };
    let at = |f: &str| locs.agent_field(f).unwrap_or(suite_at);
    if agent.command.is_empty() || agent.command[0].trim().is_empty() {
        cx.error(
            at("command"),
            "`agent.command` is empty",
            "give the argv, e.g. `[python3, agent.py, --input, \"{input_file}\"]`",
        );
    }
    if agent.timeout_s == Some(0) {
        cx.error(
            at("timeout_s"),
            "`agent.timeout_s` is 0",
            "give the per-case timeout in seconds",
        );
    }
    if agent.concurrency == Some(0) {
        cx.error(
            at("concurrency"),
            "`agent.concurrency` is 0",
            "run at least one case at a time",
        );
    }
    agent_env(cx, locs);
}

/// `agent.env_passthrough` and `agent.env` never hand an agent a
/// GitHub/Actions credential or a runner file command (issue 25): the suite
/// is edited in pull requests, and the agent is the code under test. The
/// runner scrubs those names regardless; refusing them here tells the
/// author at load, at the line.
fn agent_env(cx: &mut Ctx<'_>, locs: &Locations) {
    let file = &cx.loaded.file;
    let suite_at = loc(&file.suite);
    let Some(agent) = &file.agent else {
        return;
    };
    let refused = |name: &&String| EnvClass::of(name).never_for_agents();
    let passthrough: Vec<String> = agent
        .env_passthrough
        .iter()
        .filter(refused)
        .cloned()
        .collect();
    let set: Vec<String> = agent.env.keys().filter(refused).cloned().collect();
    for (field, names) in [("env_passthrough", passthrough), ("env", set)] {
        for name in names {
            let class = EnvClass::of(&name);
            cx.error(
                locs.agent_env_entry(field, &name).unwrap_or(suite_at),
                format!(
                    "`agent.{field}` names `{name}`, {}: an agent never receives it",
                    class.describe()
                ),
                if class == EnvClass::RunnerFileCommand {
                    format!(
                        "remove `{name}` from `agent.{field}`: with it an agent could change later steps' environment, `PATH`, outputs or summary; the gate writes its own (docs/trust.md, \"Agents get no secrets\")"
                    )
                } else {
                    format!(
                        "remove `{name}` from `agent.{field}`; an agent that needs GitHub gets a token of its own under a name outside `GITHUB_*`, `GH_*`, `ACTIONS_*` (e.g. `AGENT_GH_PAT`, which it inherits) (docs/trust.md, \"Agents get no secrets\")"
                    )
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    #[test]
    fn gpa_dimensions_are_metrics_and_others_are_not() {
        let none = BTreeSet::new();
        assert!(super::known_metric("gpa:tool_calling", &none, &none).is_ok());
        let err = super::known_metric("gpa:helpfulness", &none, &none).unwrap_err();
        assert!(err.starts_with("no GPA dimension `helpfulness`"), "{err}");
    }
}
