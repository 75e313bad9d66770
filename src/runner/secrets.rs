//! The environment an agent does not get (DESIGN §11): GitHub tokens and
//! judge keys stay with the gate. An agent is untrusted code under test; a
//! token in its environment could post comments, push, or spend the judge
//! budget. `agent.env_passthrough` lists the names a suite does want passed.

/// Names removed from an agent's environment.
const SECRET_NAMES: [&str; 9] = [
    "GITHUB_TOKEN",
    "AGENTEVAL_GITHUB_TOKEN",
    "GH_TOKEN",
    "GH_ENTERPRISE_TOKEN",
    "GITHUB_ENTERPRISE_TOKEN",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "AZURE_API_KEY",
];

/// Prefixes of removed names: the Actions runtime's tokens and URLs (cache,
/// artifacts, OIDC) and every judge setting of the gate.
const SECRET_PREFIXES: [&str; 5] = [
    "ACTIONS_RUNTIME_",
    "ACTIONS_ID_TOKEN_",
    "ACTIONS_CACHE_",
    "ACTIONS_RESULTS_",
    "AGENTEVAL_JUDGE_",
];

/// Whether `name` is a secret the agent does not inherit.
pub(crate) fn is_secret(name: &str) -> bool {
    SECRET_NAMES.contains(&name) || SECRET_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// The secrets set in `vars` (the gate's environment) that are not in
/// `passthrough`, sorted: what the agent's environment drops.
pub(crate) fn scrubbed<I, K>(vars: I, passthrough: &[String]) -> Vec<String>
where
    I: IntoIterator<Item = K>,
    K: AsRef<std::ffi::OsStr>,
{
    let mut out: Vec<String> = vars
        .into_iter()
        .filter_map(|k| k.as_ref().to_str().map(str::to_owned))
        .filter(|k| is_secret(k) && !passthrough.contains(k))
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_keys_are_scrubbed_unless_passed_through() {
        let vars = [
            "PATH",
            "GITHUB_TOKEN",
            "GITHUB_SHA",
            "ACTIONS_RUNTIME_TOKEN",
            "ACTIONS_ID_TOKEN_REQUEST_URL",
            "ACTIONS_STEP_DEBUG",
            "OPENAI_API_KEY",
            "AGENTEVAL_JUDGE_API_KEY",
            "AGENTEVAL_CASE_ID",
            "GH_TOKEN",
        ];
        assert_eq!(
            scrubbed(vars, &["OPENAI_API_KEY".to_owned()]),
            [
                "ACTIONS_ID_TOKEN_REQUEST_URL",
                "ACTIONS_RUNTIME_TOKEN",
                "AGENTEVAL_JUDGE_API_KEY",
                "GH_TOKEN",
                "GITHUB_TOKEN"
            ]
        );
    }
}
