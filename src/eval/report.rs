//! Assemble the run report from case reports: the suite aggregate (evaluation
//! builds the run report; renderers only read it).

use std::collections::BTreeMap;

use crate::eval::compliance;
use crate::model::metric::suite_means;
use crate::model::run::{
    Aggregate, CaseReport, CaseStatus, CheckpointInfo, CheckpointSummary, Cost, JudgeSummary,
    RUN_REPORT_SCHEMA_VERSION, RunMode, RunReport, ShardInfo, Tier, ToolUse,
};
use crate::spec::suite::Suite;

/// Everything about a run that is not per case.
#[derive(Debug, Clone)]
pub(crate) struct RunMeta {
    pub tier: Tier,
    pub mode: RunMode,
    pub seed: u64,
    /// Suite tags overlaid with `--tag`.
    pub config_tags: BTreeMap<String, String>,
    pub evaluated_at: Option<String>,
    pub wall_time_ms: Option<u64>,
    pub judge: JudgeSummary,
    pub shard: Option<ShardInfo>,
    pub warnings: Vec<String>,
}

pub(crate) fn build_run_report(suite: &Suite, cases: Vec<CaseReport>, meta: RunMeta) -> RunReport {
    let aggregate = aggregate(&cases, suite.checkpoints.len());
    RunReport {
        schema_version: RUN_REPORT_SCHEMA_VERSION,
        tool_version: crate::VERSION.to_owned(),
        suite: suite.name.clone(),
        spec_version: suite.spec_version.clone(),
        spec_hash: suite.spec_hash.clone(),
        tier: meta.tier,
        mode: meta.mode,
        seed: meta.seed,
        config_tags: meta.config_tags,
        checkpoint_catalog: suite
            .checkpoints
            .iter()
            .map(|c| CheckpointInfo {
                id: c.id.clone(),
                tier: c.tier,
                severity: c.severity,
                instruction: c.instruction.clone(),
            })
            .collect(),
        evaluated_at: meta.evaluated_at,
        wall_time_ms: meta.wall_time_ms,
        judge: meta.judge,
        shard: meta.shard,
        adaptive: None,
        cases,
        aggregate,
        warnings: meta.warnings,
    }
}

/// Suite aggregate over `cases`; `checkpoints` is the suite's checkpoint count.
pub(crate) fn aggregate(cases: &[CaseReport], checkpoints: usize) -> Aggregate {
    let all_results = || cases.iter().flat_map(|c| c.checkpoints.iter());
    let mut per_checkpoint: BTreeMap<String, CheckpointSummary> = BTreeMap::new();
    for case in cases {
        for r in &case.checkpoints {
            let s = per_checkpoint.entry(r.id.clone()).or_default();
            let one = compliance::summarize(std::slice::from_ref(r));
            s.total_checkpoints += 1;
            s.passed += one.passed;
            s.partial += one.partial;
            s.failed += one.failed;
            s.na += one.na;
            s.blocked += one.blocked;
        }
    }
    let mut tool_use = ToolUse::default();
    let mut cost = Cost::default();
    let mut cost_sum: Option<f64> = None;
    let mut latency_sum: Option<f64> = None;
    for c in cases {
        let t = &c.tool_use;
        tool_use.tool_calls += t.tool_calls;
        tool_use.failed_calls += t.failed_calls;
        tool_use.redundant_calls += t.redundant_calls;
        tool_use.invalid_args += t.invalid_args;
        tool_use.loops += t.loops;
        tool_use.steps += t.steps;
        for name in &t.missing_expected_tools {
            if !tool_use.missing_expected_tools.contains(name) {
                tool_use.missing_expected_tools.push(name.clone());
            }
        }
        for name in &t.unknown_tools {
            if !tool_use.unknown_tools.contains(name) {
                tool_use.unknown_tools.push(name.clone());
            }
        }
        cost.input_tokens += c.cost.input_tokens;
        cost.output_tokens += c.cost.output_tokens;
        if let Some(v) = c.cost.cost_usd {
            *cost_sum.get_or_insert(0.0) += v;
        }
        if let Some(v) = c.cost.latency_ms {
            *latency_sum.get_or_insert(0.0) += v;
        }
    }
    tool_use.missing_expected_tools.sort();
    tool_use.unknown_tools.sort();
    cost.cost_usd = cost_sum;
    cost.latency_ms = latency_sum;
    let cases_ok = cases.iter().filter(|c| c.status == CaseStatus::Ok).count();
    Aggregate {
        cases: cases.len(),
        cases_ok,
        cases_failed: cases.len() - cases_ok,
        metrics: suite_means(cases),
        position_dropout_analysis: compliance::position_dropout(all_results(), checkpoints),
        evaluator_audit: compliance::evaluator_audit(all_results()),
        checkpoints: per_checkpoint,
        propagation: crate::eval::metrics::propagation::propagation_stats(cases),
        tool_use,
        cost,
        insights: Some(crate::insights::collect_insights(cases)),
        trials: crate::eval::trials::trial_stats(cases),
    }
}
