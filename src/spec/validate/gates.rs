//! `gates:`, `thresholds:` and `agent:` settings: ranges, metric names that
//! exist, and `min_effect`/absolute bounds inside each metric's domain.
//! Every error points at the key or value it is about.

use std::collections::BTreeSet;

use serde_saphyr::Location;

use crate::spec::model::StepType;

use super::SUITE_METRICS;
use super::context::{Ctx, did_you_mean, loc};
use super::locations::Locations;

/// The range a metric's per-case values can take (`None` = unbounded above).
fn domain(name: &str) -> Option<(f64, Option<f64>)> {
    Some(match name {
        "compliance_percent" | "spec_health_percent" => (0.0, Some(100.0)),
        "workflow_quality" => (1.0, Some(5.0)),
        "task_success" => (0.0, Some(1.0)),
        "cost_usd" | "latency_ms" => (0.0, None),
        n if n.starts_with("checkpoint:") => (0.0, Some(1.0)),
        n if n.starts_with("step_type:") || n.starts_with("step:") => (1.0, Some(5.0)),
        _ => return None,
    })
}

fn range_text(lo: f64, hi: Option<f64>) -> String {
    match hi {
        Some(hi) => format!("{lo}–{hi}"),
        None => format!("≥ {lo}"),
    }
}

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
    let field_at = |f: &str| locs.gate_field(f).unwrap_or(suite_at);
    if let Some(alpha) = g.alpha
        && !(alpha > 0.0 && alpha < 1.0)
    {
        cx.error(
            field_at("alpha"),
            format!("`gates.alpha` is {alpha}; it must lie strictly between 0 and 1"),
            "the usual value is 0.05",
        );
    }
    if let Some(n) = g.min_cases
        && n < 2
    {
        cx.error(
            field_at("min_cases"),
            format!("`gates.min_cases` is {n}; a paired test needs at least 2 cases"),
            "the default is 5",
        );
    }
    if let Some(w) = g.history_window
        && w < 5
    {
        cx.error(
            field_at("history_window"),
            format!("`gates.history_window` is {w}; the 2σ band needs at least 5 points"),
            "the default is 20",
        );
    }
    if let Some(r) = g.max_judge_error_rate
        && !(0.0..=1.0).contains(&r)
    {
        cx.error(
            field_at("max_judge_error_rate"),
            format!("`gates.max_judge_error_rate` is {r}; it is a share between 0 and 1"),
            "e.g. 0.1 for 10%",
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
    let mut unknown = BTreeSet::new();
    for (name, section) in names {
        if let Err(why) = known_metric(&name, checkpoint_ids, workflow_steps) {
            unknown.insert(name.clone());
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
    for (name, gate) in &g.metrics {
        let Some(effect) = gate.min_effect else {
            continue;
        };
        let at = entry_at("metrics", name, Some("min_effect"));
        if !effect.is_finite() || effect < 0.0 {
            cx.error(
                at,
                format!(
                    "`gates.metrics.{name}.min_effect` is {effect}; it is a size, so 0 or more"
                ),
                "give the smallest change that matters in the metric's units",
            );
            continue;
        }
        if unknown.contains(name) {
            continue;
        }
        if let Some((lo, Some(hi))) = domain(name)
            && effect >= hi - lo
        {
            cx.error(
                at,
                format!(
                    "`gates.metrics.{name}.min_effect` is {effect}, but `{name}` runs from {lo} to {hi}: no change can reach it, so it can never alert"
                ),
                format!(
                    "give it in the metric's units, below {}; e.g. 0.05 for five points of a 0–1 rate",
                    hi - lo
                ),
            );
        }
    }
    for (name, gate) in &g.absolute {
        if let (Some(min), Some(max)) = (gate.min, gate.max)
            && min > max
        {
            cx.error(
                entry_at("absolute", name, Some("min")),
                format!("`gates.absolute.{name}` has min {min} above max {max}"),
                "swap them",
            );
            continue;
        }
        if unknown.contains(name) {
            continue;
        }
        let Some((lo, hi)) = domain(name) else {
            continue;
        };
        let range = range_text(lo, hi);
        if let Some(min) = gate.min {
            bound(
                cx,
                entry_at("absolute", name, Some("min")),
                name,
                "min",
                min,
                lo,
                hi,
                &range,
            );
        }
        if let Some(max) = gate.max {
            bound(
                cx,
                entry_at("absolute", name, Some("max")),
                name,
                "max",
                max,
                lo,
                hi,
                &range,
            );
        }
    }
}

/// An absolute bound outside the domain: always breached (error) or never
/// breached (warning).
#[expect(
    clippy::too_many_arguments,
    reason = "one message per case, all parts needed"
)]
fn bound(
    cx: &mut Ctx<'_>,
    at: Location,
    name: &str,
    which: &str,
    value: f64,
    lo: f64,
    hi: Option<f64>,
    range: &str,
) {
    let above = hi.is_some_and(|h| value > h);
    let (always, never) = match which {
        "min" => (above, value <= lo),
        _ => (value < lo, hi.is_some_and(|h| value >= h)),
    };
    if always {
        cx.error(
            at,
            format!("`gates.absolute.{name}.{which}` is {value}, outside `{name}`'s range {range}: every run breaches it"),
            format!("give the bound in the metric's units, within {range}"),
        );
    } else if never {
        cx.warning(
            at,
            format!("`gates.absolute.{name}.{which}` is {value}, at the edge of `{name}`'s range {range}: no run can breach it"),
            "tighten it or remove it",
        );
    }
}

/// Whether `name` is a metric this suite can produce.
fn known_metric(
    name: &str,
    checkpoint_ids: &BTreeSet<String>,
    workflow_steps: &BTreeSet<String>,
) -> Result<(), String> {
    if SUITE_METRICS.contains(&name) {
        return Ok(());
    }
    if let Some(id) = name.strip_prefix("checkpoint:") {
        return if checkpoint_ids.contains(id) {
            Ok(())
        } else {
            Err(format!(
                "no checkpoint `{id}`{}",
                did_you_mean(id, checkpoint_ids.iter().map(String::as_str))
            ))
        };
    }
    if let Some(t) = name.strip_prefix("step_type:") {
        return if StepType::ALL.iter().any(|s| s.as_str() == t) {
            Ok(())
        } else {
            Err(format!("no step type `{t}`"))
        };
    }
    if let Some(step) = name.strip_prefix("step:") {
        return if workflow_steps.contains(step) {
            Ok(())
        } else {
            Err(format!("no workflow step `{step}`"))
        };
    }
    if name.starts_with("judge:") {
        return Ok(());
    }
    Err(format!(
        "not a metric{}",
        did_you_mean(name, SUITE_METRICS.iter().copied())
    ))
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
}
