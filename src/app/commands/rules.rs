//! The rules a compare is judged by (issue 25, DESIGN §9). In a
//! `pull_request` event the suites (checkpoints, severities, gates, tiers,
//! cases, tools, the agent's `env_passthrough` and `trials`), the list of
//! suites and `agenteval.yaml` (baselines directory, judge provider, base URL,
//! key variable, `fail_on`, α…) are read from the PR's base commit, as the
//! baseline is. The PR's own suites are loaded and validated too; their
//! differences from the base are the "changes to the gate, effective after
//! merge". What the agent *is* comes from the PR: `agent.command`, its `env`,
//! timeout and concurrency, and `config_tags`. `--rules-ref worktree` (a
//! maintainer's override) judges by the PR's own rules; outside a pull request
//! the working tree's rules are used.

use crate::app::cli::CliEvalArgs;
use crate::app::config::Config;
use crate::app::error::Result;
use crate::baseline::BaselineError;
use crate::baseline::source::{WORKTREE, check_rev, pull_request_base};
use crate::compare::gate_changes::gate_changes;
use crate::model::compare::SourceKind;
use crate::model::rules::RulesInfo;
use crate::runner::settings::{EvalSettings, TierChoice};
use crate::spec::SpecError;
use crate::spec::discover::{
    Checked, load_checked, load_checked_from, suite_paths, suite_paths_at,
};
use crate::spec::load::SpecSource;
use crate::spec::suite::Suite;

use super::common::print_warnings;
use super::run::check_evidence_goes_with_traces;

/// Where the rules are read from.
#[derive(Debug, Clone)]
pub(crate) struct RulesSource {
    rev: Option<String>,
    chosen_by: &'static str,
}

impl RulesSource {
    /// `flag` is `--rules-ref` (clap also reads `AGENTEVAL_RULES_REF`); `env` looks up the
    /// Actions variables.
    pub(crate) fn resolve(
        flag: Option<&str>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self> {
        let (rev, chosen_by) = match flag.map(str::trim) {
            Some(WORKTREE) => (None, "--rules-ref"),
            Some(rev) => (Some(check_rev(rev)?), "--rules-ref"),
            None => match pull_request_base(&env).map_err(|e| match e {
                BaselineError::Git { rev, message, .. } => BaselineError::Git {
                    rev,
                    message,
                    help: "the rules of a pull request are read from its base commit; pass `--rules-ref REF` (or `worktree`) to say where they are".to_owned(),
                },
                other => other,
            })? {
                Some(sha) => (Some(sha), "pull request base"),
                None => (None, "default"),
            },
        };
        Ok(Self { rev, chosen_by })
    }
}

/// The suites to evaluate, the settings they were resolved with, and (when the rules
/// were chosen, not defaulted) where they came from and what the working tree changes.
pub(crate) struct Ruled {
    /// The config the rules were read with (the base commit's in a pull request).
    pub config: Config,
    pub settings: EvalSettings,
    pub suites: Vec<Suite>,
    pub info: Option<RulesInfo>,
}

pub(crate) fn load_ruled(
    args: &CliEvalArgs,
    config: &Config,
    source: &RulesSource,
    tier: TierChoice,
    quiet: bool,
) -> Result<Ruled> {
    let Some(rev) = &source.rev else {
        let settings = EvalSettings::resolve(args, config, tier)?;
        let suites = super::run::load_suites(&settings, quiet)?;
        let info = (source.chosen_by != "default").then(|| RulesInfo {
            kind: SourceKind::Worktree,
            rev: None,
            chosen_by: source.chosen_by.to_owned(),
            changes: Vec::new(),
            removed_suites: Vec::new(),
        });
        return Ok(Ruled {
            config: config.clone(),
            settings,
            suites,
            info,
        });
    };
    let here = std::path::Path::new(".");
    let mut present = crate::fsutil::git::is_commit(here, rev).unwrap_or(false);
    if !present && source.chosen_by == "pull request base" {
        // A shallow checkout: fetch the base commit once (the baseline loader does too).
        let _fetched = crate::fsutil::git::git(
            here,
            &["fetch", "--quiet", "--no-tags", "--depth=1", "origin", rev],
        );
        present = crate::fsutil::git::is_commit(here, rev).unwrap_or(false);
    }
    if !present {
        return Err(SpecError::NotFound {
            path: rev.into(),
            help: format!(
                "the rules of a pull request are read from its base commit (`{rev}`, {}), which this checkout lacks: check out with history (`actions/checkout` with `fetch-depth: 0`), or pass `--rules-ref worktree` to judge by the pull request's own rules",
                source.chosen_by
            ),
        }
        .into());
    }
    let base_config = config.at_rev(rev)?;
    let settings = EvalSettings::resolve(args, &base_config, tier)?;
    let head_settings = EvalSettings::resolve(args, config, tier)?;

    let head = head_suites(&head_settings, quiet)?;
    let from = SpecSource::Git(rev.clone());
    let mut base = Vec::new();
    for path in suite_paths_at(rev, &settings.suite.suites_dir, &settings.suite.suites)? {
        base.push(load_checked_from(&path, &from)?);
    }
    let changes = gate_changes(
        &base.iter().map(|c| &c.loaded).collect::<Vec<_>>(),
        &head.iter().map(|c| &c.loaded).collect::<Vec<_>>(),
        base_config.text.as_deref(),
        config.text.as_deref(),
    );
    let mut suites = Vec::new();
    let mut removed_suites = Vec::new();
    for b in &base {
        match head.iter().find(|h| h.suite.name == b.suite.name) {
            Some(h) => suites.push(with_head_agent(b.suite.clone(), &h.suite)),
            None => removed_suites.push(b.suite.name.clone()),
        }
    }
    // A suite the base does not have is judged by its own rules (listed as added); it
    // has no baseline at the base either.
    for h in &head {
        if !base.iter().any(|b| b.suite.name == h.suite.name) {
            suites.push(h.suite.clone());
        }
    }
    for suite in &suites {
        check_evidence_goes_with_traces(suite, &settings)?;
    }
    Ok(Ruled {
        config: base_config,
        settings,
        suites,
        info: Some(RulesInfo {
            kind: SourceKind::Git,
            rev: Some(rev.clone()),
            chosen_by: source.chosen_by.to_owned(),
            changes,
            removed_suites,
        }),
    })
}

/// The working tree's suites, validated (their warnings printed): a suite selected with
/// `--suite` that the working tree lacks is left out (the base's is then "removed").
fn head_suites(settings: &EvalSettings, quiet: bool) -> Result<Vec<Checked>> {
    let dir = &settings.suite.suites_dir;
    let paths = if settings.suite.suites.is_empty() {
        match suite_paths(dir, &[]) {
            Err(SpecError::NotFound { .. }) => Vec::new(),
            other => other?,
        }
    } else {
        let mut paths = Vec::new();
        for s in &settings.suite.suites {
            match suite_paths(dir, std::slice::from_ref(s)) {
                Err(SpecError::NotFound { .. }) => {}
                other => paths.extend(other?),
            }
        }
        paths
    };
    let mut out = Vec::new();
    for path in paths {
        let checked = load_checked(&path)?;
        print_warnings(&checked.warnings, quiet);
        out.push(checked);
    }
    Ok(out)
}

/// The base's rules with the pull request's agent: its command, env, timeout and
/// concurrency and its `config_tags`; what it may inherit (`env_passthrough`, only the
/// names the base also allows) and how often it runs (`trials`) stay the base's.
fn with_head_agent(mut base: Suite, head: &Suite) -> Suite {
    let allowed = base
        .agent
        .as_ref()
        .map(|a| a.env_passthrough.clone())
        .unwrap_or_default();
    let trials = base.agent.as_ref().and_then(|a| a.trials);
    base.agent = head.agent.clone().map(|mut a| {
        a.env_passthrough.retain(|k| allowed.contains(k));
        a.trials = trials;
        a
    });
    base.config_tags.clone_from(&head.config_tags);
    base
}
