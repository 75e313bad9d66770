//! Which environment variables are secrets, in one place (issue 25, item 2).
//!
//! Three rules read this list, so they cannot drift apart:
//!
//! - the agent scrubber (`runner::secrets`) removes GitHub/Actions
//!   credentials and the runner's file commands from every agent, always,
//!   and judge keys unless `agent.env_passthrough` names them;
//! - the suite loader refuses a credential or a file command in
//!   `agent.env_passthrough` or `agent.env` (`spec::validate`);
//! - a judge key may come from no variable of the CI's namespace
//!   (`judge.api_key_env` in `agenteval.yaml`, `spec::judge_check`): the key
//!   is sent to the judge's base URL.
//!
//! Names are compared case-insensitively (Windows treats them so, and a
//! lowercase `gh_token` is no safer to hand out).

/// The runner's file commands: an agent holding one could set later steps'
/// environment and `PATH`, forge step outputs, state or the job summary
/// (<https://docs.github.com/actions/reference/workflows-and-actions/workflow-commands#environment-files>).
pub(crate) const RUNNER_FILE_COMMANDS: [&str; 5] = [
    "GITHUB_ENV",
    "GITHUB_PATH",
    "GITHUB_OUTPUT",
    "GITHUB_STATE",
    "GITHUB_STEP_SUMMARY",
];

/// The CI's own namespace: GitHub (`GITHUB_*`, the `gh` CLI's `GH_*`), the
/// Actions runtime and runner, and the gate's GitHub settings.
const CI_PREFIXES: [&str; 5] = ["GITHUB_", "GH_", "ACTIONS_", "RUNNER_", "AGENTEVAL_GITHUB"];

/// Credentials of the CI by prefix: every `gh` CLI variable (`GH_TOKEN`,
/// `GH_ENTERPRISE_TOKEN`, …), the gate's GitHub token, and the Actions
/// runtime's tokens and URLs (cache, artifacts, OIDC).
const CREDENTIAL_PREFIXES: [&str; 6] = [
    "GH_",
    "AGENTEVAL_GITHUB",
    "ACTIONS_RUNTIME_",
    "ACTIONS_ID_TOKEN_",
    "ACTIONS_CACHE_",
    "ACTIONS_RESULTS_",
];

/// A word of a name in the CI's namespace that makes it a credential
/// (`GITHUB_TOKEN`, `GITHUB_ENTERPRISE_TOKEN`, a workflow's `GITHUB_PAT`).
const CREDENTIAL_WORDS: [&str; 7] = [
    "TOKEN",
    "PAT",
    "KEY",
    "SECRET",
    "PASSWORD",
    "CREDENTIALS",
    "AUTH",
];

/// Judge keys an agent may be given on purpose (`env_passthrough`).
const JUDGE_KEYS: [&str; 4] = [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "AZURE_API_KEY",
];

/// Every judge setting of the gate (`AGENTEVAL_JUDGE_API_KEY`, …).
const JUDGE_PREFIX: &str = "AGENTEVAL_JUDGE_";

/// What an environment variable is to the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EnvClass {
    /// A GitHub or Actions credential: never given to an agent, never a judge key.
    CiCredential,
    /// One of [`RUNNER_FILE_COMMANDS`]: never given to an agent, never a judge key.
    RunnerFileCommand,
    /// Another name of the CI's namespace (`GITHUB_SHA`, `RUNNER_OS`):
    /// inherited by agents, never a judge key.
    CiContext,
    /// A judge key: kept from agents unless passed through.
    JudgeKey,
    /// Anything else: inherited, may hold a judge key.
    Other,
}

impl EnvClass {
    /// Classify `name`.
    pub(crate) fn of(name: &str) -> Self {
        let upper = name.to_ascii_uppercase();
        let upper = upper.as_str();
        if RUNNER_FILE_COMMANDS.contains(&upper) {
            return Self::RunnerFileCommand;
        }
        if CREDENTIAL_PREFIXES.iter().any(|p| upper.starts_with(p)) {
            return Self::CiCredential;
        }
        if CI_PREFIXES.iter().any(|p| upper.starts_with(p)) {
            let credential = upper
                .split('_')
                .any(|word| CREDENTIAL_WORDS.contains(&word));
            return if credential {
                Self::CiCredential
            } else {
                Self::CiContext
            };
        }
        if JUDGE_KEYS.contains(&upper) || upper.starts_with(JUDGE_PREFIX) {
            return Self::JudgeKey;
        }
        Self::Other
    }

    /// Never given to an agent, whatever the suite says: a credential or a
    /// file command.
    pub(crate) fn never_for_agents(self) -> bool {
        matches!(self, Self::CiCredential | Self::RunnerFileCommand)
    }

    /// Removed from an agent's environment unless `agent.env_passthrough`
    /// names it.
    pub(crate) fn kept_from_agents(self) -> bool {
        self.never_for_agents() || self == Self::JudgeKey
    }

    /// May name the variable a judge key is read from: nothing of the CI's
    /// namespace.
    pub(crate) fn may_hold_judge_key(self) -> bool {
        matches!(self, Self::JudgeKey | Self::Other)
    }

    /// How a message names the class (`GITHUB_TOKEN` is "a GitHub/Actions
    /// credential").
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Self::CiCredential => "a GitHub/Actions credential",
            Self::RunnerFileCommand => "a file command of the Actions runner",
            Self::CiContext => "a GitHub/Actions variable",
            Self::JudgeKey => "a judge key",
            Self::Other => "an environment variable",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::EnvClass::{self, *};

    #[test]
    fn names_are_classified() {
        for (name, class) in [
            ("GITHUB_TOKEN", CiCredential),
            ("github_token", CiCredential),
            ("GH_TOKEN", CiCredential),
            ("GH_ENTERPRISE_TOKEN", CiCredential),
            ("GH_HOST", CiCredential),
            ("GITHUB_ENTERPRISE_TOKEN", CiCredential),
            ("GITHUB_PAT", CiCredential),
            ("AGENTEVAL_GITHUB_TOKEN", CiCredential),
            ("ACTIONS_RUNTIME_TOKEN", CiCredential),
            ("ACTIONS_ID_TOKEN_REQUEST_URL", CiCredential),
            ("ACTIONS_CACHE_URL", CiCredential),
            ("ACTIONS_RESULTS_URL", CiCredential),
            ("GITHUB_ENV", RunnerFileCommand),
            ("GITHUB_PATH", RunnerFileCommand),
            ("GITHUB_OUTPUT", RunnerFileCommand),
            ("GITHUB_STATE", RunnerFileCommand),
            ("GITHUB_STEP_SUMMARY", RunnerFileCommand),
            ("GITHUB_SHA", CiContext),
            ("GITHUB_WORKSPACE", CiContext),
            ("RUNNER_OS", CiContext),
            ("ACTIONS_STEP_DEBUG", CiContext),
            ("OPENAI_API_KEY", JudgeKey),
            ("AGENTEVAL_JUDGE_API_KEY", JudgeKey),
            ("MY_JUDGE_KEY", Other),
            ("PATH", Other),
            ("AGENTEVAL_CASE_ID", Other),
        ] {
            assert_eq!(EnvClass::of(name), class, "{name}");
        }
    }

    #[test]
    fn the_three_rules_read_one_list() {
        assert!(EnvClass::of("GH_TOKEN").never_for_agents());
        assert!(!EnvClass::of("GH_TOKEN").may_hold_judge_key());
        assert!(!EnvClass::of("GITHUB_ENV").may_hold_judge_key());
        assert!(!EnvClass::of("RUNNER_TEMP").may_hold_judge_key());
        assert!(!EnvClass::of("RUNNER_TEMP").kept_from_agents());
        assert!(EnvClass::of("OPENAI_API_KEY").kept_from_agents());
        assert!(!EnvClass::of("OPENAI_API_KEY").never_for_agents());
        assert!(EnvClass::of("OPENAI_API_KEY").may_hold_judge_key());
        assert!(EnvClass::of("MY_JUDGE_KEY").may_hold_judge_key());
    }
}
