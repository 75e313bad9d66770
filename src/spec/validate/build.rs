//! The validation driver: suite-level checks, then each pass, then the
//! `Suite` when no error was found. References between parts (a constraint
//! or gate naming a checkpoint) are checked against what is declared, so a
//! checkpoint with an error of its own does not raise a second one.

use crate::diagnostic::FileDiagnostic;
use crate::spec::load::LoadedSuite;
use crate::spec::suite::Suite;

use super::context::{Ctx, loc};
use super::locations::Locations;
use super::{cases, catalog, checkpoints, gates, judge, task, workflow};

/// Suite-level metric names (DESIGN §13).
pub(crate) use crate::model::metric_id::SUITE_METRIC_NAMES as SUITE_METRICS;

/// Outcome of validation: the suite when there are no errors, and every
/// diagnostic (errors and warnings) in file order.
#[derive(Debug)]
pub(crate) struct Validation {
    pub suite: Option<Suite>,
    pub diagnostics: Vec<FileDiagnostic>,
}

pub(crate) fn validate(loaded: &LoadedSuite) -> Validation {
    let mut cx = Ctx::new(loaded);
    let locs = Locations::parse(loaded.source.inner());
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

    let catalog = catalog::tools(&mut cx);
    let cases = cases::validate(&mut cx, &catalog);
    let declared = checkpoints::declared_ids(&cx);
    let checkpoints = checkpoints::validate(&mut cx, &catalog, &cases);
    let constraints = checkpoints::constraints(&mut cx, &declared);
    let workflow_steps = workflow::validate(&mut cx, &catalog);
    let task_success = task::task_success(&mut cx, &declared);
    gates::thresholds(&mut cx, &locs);
    gates::gates(&mut cx, &locs, &declared, &workflow_steps);
    gates::tier_size(&mut cx);
    gates::agent(&mut cx, &locs);
    paths(&mut cx, &locs);
    judge::validate(&mut cx);
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
                locs.top("tiers").unwrap_or(loc(&file.suite)),
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
        prompt_files: loaded.prompt_files.clone().unwrap_or_default(),
        task_success,
        cases,
    });
    Validation { suite, diagnostics }
}

fn paths(cx: &mut Ctx<'_>, locs: &Locations) {
    let file = &cx.loaded.file;
    let at = loc(&file.suite);
    let at_key = |key: &str| locs.top(key).unwrap_or(at);
    if let Some(traces) = &file.traces
        && file.agent.is_none()
        && !cx.loaded.dir.join(traces).is_dir()
    {
        cx.warning(
            at_key("traces"),
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
            at_key("evidence"),
            format!(
                "evidence directory `{evidence}` does not exist; tier-1 checkpoints will be N/A"
            ),
            "collect evidence JSON per case into that directory",
        );
    }
}
