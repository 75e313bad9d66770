//! `merge`: combine the shard reports of one run (`run --shard i/n`) into
//! the report a single process would have written. Cases go back into suite
//! order and the aggregate is recomputed by `eval::report`, so with
//! `--deterministic` the merged file equals a one-process run byte for byte.
//!
//! Everything that must agree is checked first (suite, `spec_hash`, seed,
//! tier, mode, shard count, tool version, config tags, judge), and the
//! shards must cover exactly the cases the suite puts in them: a missing
//! shard or a stray case is an error, never a silently smaller report.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use miette::Diagnostic;

use crate::eval::report::{RunMeta, build_run_report};
use crate::exit_code::ExitCode;
use crate::model::run::{CaseReport, RunReport, Tier};
use crate::runner::select::in_shard;
use crate::runner::settings::Shard;
use crate::spec::suite::Suite;

const SAME_RUN_HELP: &str = "merge the shards of one run: `run --shard I/N --out FILE` with the same suite.yaml, `--seed`, `--tier`, `--tag`s and N";

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum MergeError {
    #[error("`{}` is not a shard report (it has no `shard`)", path.display())]
    #[diagnostic(
        code(agenteval::merge::not_a_shard),
        help("merge takes the reports of `run --shard I/N --out FILE`")
    )]
    NotAShard { path: PathBuf },

    #[error("`{}` is a report of suite `{found}`, not `{expected}`", path.display())]
    #[diagnostic(code(agenteval::merge::suite), help("{SAME_RUN_HELP}"))]
    WrongSuite {
        path: PathBuf,
        found: String,
        expected: String,
    },

    #[error(
        "`{}` and `{}` differ in `{field}` (`{value}` vs `{first_value}`)",
        path.display(),
        first.display()
    )]
    #[diagnostic(code(agenteval::merge::mixed), help("{SAME_RUN_HELP}"))]
    Mixed {
        field: &'static str,
        first: PathBuf,
        first_value: String,
        path: PathBuf,
        value: String,
    },

    #[error("`{}` was written by agenteval-gate {found}; this is {expected}", path.display())]
    #[diagnostic(
        code(agenteval::merge::tool_version),
        help("run the shards and the merge with the same agenteval-gate version")
    )]
    ToolVersion {
        path: PathBuf,
        found: String,
        expected: String,
    },

    #[error(
        "the shard reports of `{suite}` were made from a different suite.yaml than `{}` (spec_hash {found}, the suite has {expected})",
        suite_path.display()
    )]
    #[diagnostic(
        code(agenteval::merge::spec_hash),
        help("merge in the checkout the shards ran on, or re-run the shards")
    )]
    SpecChanged {
        suite: String,
        suite_path: PathBuf,
        found: String,
        expected: String,
    },

    #[error("shard {index}/{count} is given twice: `{}` and `{}`", first.display(), path.display())]
    #[diagnostic(
        code(agenteval::merge::duplicate),
        help("pass each shard's report once")
    )]
    DuplicateShard {
        index: u32,
        count: u32,
        first: PathBuf,
        path: PathBuf,
    },

    #[error(
        "shard {index}/{count} of `{suite}` is missing: the suite puts {cases} in it (first `{first_case}`)"
    )]
    #[diagnostic(
        code(agenteval::merge::missing),
        help("pass every shard's report; only a shard the suite puts no case in may be left out")
    )]
    MissingShard {
        suite: String,
        index: u32,
        count: u32,
        cases: String,
        first_case: String,
    },

    #[error("`{}` (shard {index}/{count}) does not hold the cases the suite puts in that shard: {detail}", path.display())]
    #[diagnostic(
        code(agenteval::merge::cases),
        help("re-run the shard with the same suite.yaml; shard reports must not be edited")
    )]
    WrongCases {
        path: PathBuf,
        index: u32,
        count: u32,
        detail: String,
    },

    #[error("no reports to merge")]
    #[diagnostic(
        code(agenteval::merge::empty),
        help("pass the shard reports: `agenteval-gate merge shard-*.json --out merged.json`")
    )]
    NoReports,
}

impl MergeError {
    #[expect(
        clippy::unused_self,
        reason = "every domain error maps itself to an exit code; this one has a single code"
    )]
    pub fn exit_code(&self) -> ExitCode {
        ExitCode::DataError
    }
}

/// A shard report and where it came from (for messages).
#[derive(Debug, Clone)]
pub(crate) struct ShardReport {
    pub path: PathBuf,
    pub report: RunReport,
}

/// Fields that must be identical in every shard of one run.
type Field = (&'static str, fn(&RunReport) -> String);
const SAME: [Field; 8] = [
    ("suite", |r| r.suite.clone()),
    ("spec_hash", |r| r.spec_hash.clone()),
    ("spec_version", |r| r.spec_version.clone()),
    ("seed", |r| r.seed.to_string()),
    ("tier", |r| r.tier.to_string()),
    ("mode", |r| format!("{:?}", r.mode).to_lowercase()),
    ("config_tags", |r| format!("{:?}", r.config_tags)),
    ("judge.provider", |r| r.judge.provider.clone()),
];

/// Merge the shard reports of `suite` into one report.
pub(crate) fn merge_shards(
    suite: &Suite,
    shards: Vec<ShardReport>,
) -> Result<RunReport, MergeError> {
    let mut shards = check_headers(suite, shards)?;
    shards.sort_by_key(|s| s.report.shard.map_or(0, |x| x.index));
    let first = &shards[0];
    let count = first.report.shard.map_or(1, |s| s.count);
    let tier = first.report.tier;
    let selected = match tier {
        Tier::Smoke => suite.smoke_cases(),
        Tier::Full => (0..suite.cases.len()).collect(),
    };

    let mut by_index: HashMap<u32, &ShardReport> = HashMap::new();
    for s in &shards {
        let index = s.report.shard.map_or(0, |x| x.index);
        if let Some(prev) = by_index.insert(index, s) {
            return Err(MergeError::DuplicateShard {
                index,
                count,
                first: prev.path.clone(),
                path: s.path.clone(),
            });
        }
    }
    for index in 1..=count {
        let expected: Vec<&str> =
            in_shard(&suite.cases, selected.clone(), Some(Shard { index, count }))
                .into_iter()
                .map(|i| suite.cases[i].id.as_str())
                .collect();
        match by_index.get(&index) {
            None if expected.is_empty() => {}
            None => {
                return Err(MergeError::MissingShard {
                    suite: suite.name.clone(),
                    index,
                    count,
                    cases: crate::output::plural(expected.len(), "case", "cases"),
                    first_case: expected[0].to_owned(),
                });
            }
            Some(s) => check_cases(s, index, count, &expected)?,
        }
    }

    // Every trial of a case, in trial order (checked above), under its id.
    let mut cases: HashMap<&str, Vec<CaseReport>> = HashMap::new();
    for c in shards.iter().flat_map(|s| s.report.cases.iter()) {
        cases.entry(c.id.as_str()).or_default().push(c.clone());
    }
    let merged_cases = selected
        .iter()
        .filter_map(|&i| cases.remove(suite.cases[i].id.as_str()))
        .flatten()
        .collect();
    let reports: Vec<&RunReport> = shards.iter().map(|s| &s.report).collect();
    let mut warnings: Vec<String> = Vec::new();
    for w in reports.iter().flat_map(|r| r.warnings.iter()) {
        if !warnings.contains(w) {
            warnings.push(w.clone());
        }
    }
    let meta = RunMeta {
        tier,
        mode: first.report.mode,
        seed: first.report.seed,
        config_tags: first.report.config_tags.clone(),
        // Shards run side by side: the run ended with the last one, and
        // took as long as the slowest.
        evaluated_at: reports.iter().filter_map(|r| r.evaluated_at.clone()).max(),
        wall_time_ms: reports.iter().filter_map(|r| r.wall_time_ms).max(),
        judge: crate::judged::summary::merge(reports.iter().map(|r| &r.judge)),
        shard: None,
        warnings,
    };
    Ok(build_run_report(suite, merged_cases, meta))
}

/// Every report is a shard of `suite`'s current spec, and all agree.
fn check_headers(suite: &Suite, shards: Vec<ShardReport>) -> Result<Vec<ShardReport>, MergeError> {
    let Some(first) = shards.first() else {
        return Err(MergeError::NoReports);
    };
    for s in &shards {
        let r = &s.report;
        if r.shard.is_none() {
            return Err(MergeError::NotAShard {
                path: s.path.clone(),
            });
        }
        if r.suite != suite.name {
            return Err(MergeError::WrongSuite {
                path: s.path.clone(),
                found: r.suite.clone(),
                expected: suite.name.clone(),
            });
        }
        if r.tool_version != crate::VERSION {
            return Err(MergeError::ToolVersion {
                path: s.path.clone(),
                found: r.tool_version.clone(),
                expected: crate::VERSION.to_owned(),
            });
        }
        for (field, get) in SAME {
            let (a, b) = (get(&first.report), get(r));
            if a != b {
                return Err(MergeError::Mixed {
                    field,
                    first: first.path.clone(),
                    first_value: a,
                    path: s.path.clone(),
                    value: b,
                });
            }
        }
        let (a, b) = (first.report.shard, r.shard);
        if a.map(|x| x.count) != b.map(|x| x.count) {
            let show = |s: Option<crate::model::run::ShardInfo>| {
                s.map(|x| format!("{}/{}", x.index, x.count))
                    .unwrap_or_default()
            };
            return Err(MergeError::Mixed {
                field: "shard count",
                first: first.path.clone(),
                first_value: show(a),
                path: s.path.clone(),
                value: show(b),
            });
        }
    }
    if first.report.spec_hash != suite.spec_hash {
        return Err(MergeError::SpecChanged {
            suite: suite.name.clone(),
            suite_path: suite.path.clone(),
            found: first.report.spec_hash.clone(),
            expected: suite.spec_hash.clone(),
        });
    }
    Ok(shards)
}

/// The shard holds exactly `expected`, in suite order, each case's trials together and
/// numbered from 0 (a run with `agent.trials: k` writes trials 0 … k−1 of a case in a row).
fn check_cases(
    s: &ShardReport,
    index: u32,
    count: u32,
    expected: &[&str],
) -> Result<(), MergeError> {
    let mut got: Vec<&str> = Vec::new();
    let mut trials_in_order = true;
    for (i, c) in s.report.cases.iter().enumerate() {
        let same_case = i > 0 && s.report.cases[i - 1].id == c.id;
        let expected_trial = if same_case {
            s.report.cases[i - 1].trial + 1
        } else {
            0
        };
        trials_in_order &= c.trial == expected_trial;
        if !same_case {
            got.push(c.id.as_str());
        }
    }
    if got == expected && trials_in_order {
        return Ok(());
    }
    let want: BTreeSet<&str> = expected.iter().copied().collect();
    let have: BTreeSet<&str> = got.iter().copied().collect();
    let list = |ids: Vec<&&str>| {
        ids.iter()
            .take(5)
            .map(|id| format!("`{id}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let missing: Vec<&&str> = want.difference(&have).collect();
    let extra: Vec<&&str> = have.difference(&want).collect();
    let detail = if !missing.is_empty() {
        format!(
            "{} missing ({})",
            crate::output::plural(missing.len(), "case", "cases"),
            list(missing)
        )
    } else if !extra.is_empty() {
        format!(
            "{} from other shards ({})",
            crate::output::plural(extra.len(), "case", "cases"),
            list(extra)
        )
    } else if got == expected {
        "a case's trials are not numbered 0, 1, … in a row".to_owned()
    } else {
        "cases repeated or out of suite order".to_owned()
    };
    Err(MergeError::WrongCases {
        path: s.path.clone(),
        index,
        count,
        detail,
    })
}

#[cfg(test)]
mod tests;
