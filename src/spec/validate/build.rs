//! The validation driver: suite-level checks, then each pass, then the
//! `Suite` when no error was found.

use std::collections::{BTreeMap, BTreeSet};

use crate::diagnostic::FileDiagnostic;
use crate::spec::load::LoadedSuite;
use crate::spec::model::StepType;
use crate::spec::suite::Suite;

use super::context::{Ctx, loc};
use super::{cases, checkpoints, workflow};

/// Suite-level metric names (DESIGN §13).
pub const SUITE_METRICS: [&str; 6] = [
    "compliance_percent",
    "spec_health_percent",
    "workflow_quality",
    "task_success",
    "cost_usd",
    "latency_ms",
];

/// Outcome of validation: the suite when there are no errors, and every
/// diagnostic (errors and warnings) in file order.
#[derive(Debug)]
pub struct Validation {
    pub suite: Option<Suite>,
    pub diagnostics: Vec<FileDiagnostic>,
}

pub fn validate(loaded: &LoadedSuite) -> Validation {
    let mut cx = Ctx::new(loaded);
    let file = &loaded.file;

    let name = &file.suite;
    if name.value.is_empty()
        || !name
            .value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        || name.value.starts_with('.')
    {
        cx.error(
            loc(name),
            format!("suite name `{}` cannot be used as a file name", name.value),
            "use letters, digits, `-`, `_` and `.` only: the name becomes `baselines/<name>/<suite>.json`",
        );
    }

    let tool_names = tools(&mut cx);
    let checkpoints = checkpoints::validate(&mut cx, &tool_names);
    let checkpoint_ids: BTreeSet<String> = checkpoints.iter().map(|c| c.id.clone()).collect();
    let constraints = checkpoints::constraints(&mut cx, &checkpoint_ids);
    let workflow_steps = workflow::validate(&mut cx, &tool_names);
    let cases = cases::validate(&mut cx, &tool_names);
    thresholds(&mut cx);
    gates(&mut cx, &checkpoint_ids, &workflow_steps);
    agent_and_paths(&mut cx);
    if file.checkpoints.is_empty() {
        cx.warning(
            loc(&file.suite),
            "the suite has no checkpoints",
            "add `checkpoints:`; without them compliance is undefined and only step and task metrics are compared",
        );
    }
    if let Some(smoke) = file.tiers.as_ref().and_then(|t| t.smoke.as_ref()) {
        let selected = cases
            .iter()
            .filter(|c| c.tags.iter().any(|t| smoke.tags.contains(t)))
            .count()
            + smoke.first.unwrap_or(0);
        if selected == 0 {
            cx.warning(
                loc(&file.suite),
                "`tiers.smoke` selects no case",
                "tag some cases with one of `tiers.smoke.tags` or set `tiers.smoke.first`",
            );
        }
    }

    let mut diagnostics = std::mem::take(&mut cx.diagnostics);
    diagnostics.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
    let has_errors = diagnostics
        .iter()
        .any(|d| d.level == crate::diagnostic::Level::Error);
    let suite = (!has_errors).then(|| Suite {
        name: name.value.clone(),
        spec_version: file.spec_version.clone(),
        description: file.description.clone(),
        path: loaded.path.clone(),
        dir: loaded.dir.clone(),
        spec_hash: loaded.hash.clone(),
        config_tags: file.config_tags.clone(),
        traces_dir: file.traces.as_ref().map(|t| loaded.dir.join(t)),
        evidence_dir: file.evidence.as_ref().map(|e| loaded.dir.join(e)),
        agent: file.agent.clone(),
        tools: file.tools.clone(),
        workflow: file.workflow.clone(),
        thresholds: file.thresholds.clone().unwrap_or_default(),
        constraints,
        checkpoints,
        smoke: file
            .tiers
            .as_ref()
            .and_then(|t| t.smoke.clone())
            .unwrap_or_default(),
        gates: file.gates.clone().unwrap_or_default(),
        partial_mode: file.partial_mode.unwrap_or_default(),
        scoring: file.scoring.clone().unwrap_or_default(),
        pricing: file.pricing.clone(),
        judge: file.judge.clone().unwrap_or_default(),
        cases,
    });
    Validation { suite, diagnostics }
}

/// Tool catalog: unique names, schemas that compile. Returns the names.
fn tools(cx: &mut Ctx<'_>) -> BTreeSet<String> {
    let mut names = BTreeMap::new();
    for tool in &cx.loaded.file.tools {
        if let Some(first_line) = names.insert(tool.name.value.clone(), tool.name.referenced.line())
        {
            cx.error(
                loc(&tool.name),
                format!(
                    "tool `{}` is defined twice (first at line {first_line})",
                    tool.name.value
                ),
                "keep one definition per tool",
            );
        }
        if let Some(schema) = &tool.schema
            && let Err(e) = jsonschema::validator_for(schema)
        {
            cx.error(
                loc(&tool.name),
                format!("the JSON Schema of tool `{}` is invalid: {e}", tool.name.value),
                "`schema:` must be a JSON Schema for the tool's arguments, e.g. `{type: object, properties: {…}}`",
            );
        }
    }
    names.into_keys().collect()
}

fn thresholds(cx: &mut Ctx<'_>) {
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
            cx.error(
                loc(&cx.loaded.file.suite),
                format!("threshold for {step_type} is {v}; step scores run from 1 to 5"),
                "set `thresholds` values between 1.0 and 5.0",
            );
        }
    }
}

fn gates(cx: &mut Ctx<'_>, checkpoint_ids: &BTreeSet<String>, workflow_steps: &BTreeSet<String>) {
    let Some(g) = cx.loaded.file.gates.clone() else {
        return;
    };
    let at = loc(&cx.loaded.file.suite);
    // Ranges of the statistics settings: one definition, shared with `compare`.
    for problem in crate::compare::settings::gate_problems(&g) {
        cx.error(
            at,
            format!("`{}` {}", problem.key, problem.message),
            "see the `gates:` section of docs/suites.md for each setting's range",
        );
    }
    let names: Vec<(String, &str)> = g
        .metrics
        .keys()
        .map(|k| (k.clone(), "metrics"))
        .chain(g.absolute.keys().map(|k| (k.clone(), "absolute")))
        .collect();
    for (name, section) in names {
        if let Err(why) = known_metric(&name, checkpoint_ids, workflow_steps) {
            cx.error(
                at,
                format!("`gates.{section}` names unknown metric `{name}`: {why}"),
                format!(
                    "metric names are {}, `checkpoint:<id>`, `step_type:<PLAN|TOOLSEL|PARAMGEN|EXEC|SYNTH>`, `step:<workflow step id>`",
                    SUITE_METRICS.join(", ")
                ),
            );
        }
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
            Err(format!("no checkpoint `{id}`"))
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
    Err("not a metric".into())
}

fn agent_and_paths(cx: &mut Ctx<'_>) {
    let file = &cx.loaded.file;
    let at = loc(&file.suite);
    if let Some(agent) = &file.agent {
        if agent.command.is_empty() || agent.command[0].trim().is_empty() {
            cx.error(
                at,
                "`agent.command` is empty",
                "give the argv, e.g. `[python3, agent.py, --input, \"{input_file}\"]`",
            );
        }
        if agent.timeout_s == Some(0) {
            cx.error(
                at,
                "`agent.timeout_s` is 0",
                "give the per-case timeout in seconds",
            );
        }
        if agent.concurrency == Some(0) {
            cx.error(
                at,
                "`agent.concurrency` is 0",
                "run at least one case at a time",
            );
        }
    }
    if let Some(traces) = &file.traces
        && file.agent.is_none()
        && !cx.loaded.dir.join(traces).is_dir()
    {
        cx.warning(
            at,
            format!(
                "traces directory `{traces}` does not exist; every case will be `trace_missing`"
            ),
            "record traces there, pass `--traces DIR`, or add an `agent:` to run the agent",
        );
    }
    if file.traces.is_none() && file.agent.is_none() {
        cx.warning(
            at,
            "the suite has neither `traces:` nor `agent:`",
            "add `traces: traces/` (replay mode) or `agent: {command: […]}` (run mode), or pass `--traces DIR`",
        );
    }
    if let Some(evidence) = &file.evidence
        && !cx.loaded.dir.join(evidence).is_dir()
    {
        cx.warning(
            at,
            format!(
                "evidence directory `{evidence}` does not exist; tier-1 checkpoints will be N/A"
            ),
            "collect evidence JSON per case into that directory",
        );
    }
}
