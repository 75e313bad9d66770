//! The environment an agent does not get (DESIGN §11): GitHub tokens and
//! judge keys stay with the gate. An agent is untrusted code under test; a
//! token in its environment could post comments, push, or spend the judge
//! budget. `agent.env_passthrough` lists the judge keys a suite does want
//! passed; GitHub/Actions credentials and the runner's file commands are
//! removed whatever it says (the suite loader refuses them there, and this
//! is the second line).

use crate::env_policy::EnvClass;

/// The secrets set in `vars` (the gate's environment) that the agent's
/// environment drops, sorted: every credential and file command, and the
/// judge keys `passthrough` does not name.
pub(crate) fn scrubbed<I, K>(vars: I, passthrough: &[String]) -> Vec<String>
where
    I: IntoIterator<Item = K>,
    K: AsRef<std::ffi::OsStr>,
{
    let mut out: Vec<String> = vars
        .into_iter()
        .filter_map(|k| k.as_ref().to_str().map(str::to_owned))
        .filter(|k| {
            let class = EnvClass::of(k);
            class.never_for_agents() || (class.kept_from_agents() && !passthrough.contains(k))
        })
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
            "GITHUB_ENV",
            "RUNNER_TEMP",
        ];
        // A passthrough of a credential or a file command is refused at
        // load; here it changes nothing.
        let passthrough = ["OPENAI_API_KEY", "GITHUB_TOKEN", "GITHUB_ENV"].map(str::to_owned);
        assert_eq!(
            scrubbed(vars, &passthrough),
            [
                "ACTIONS_ID_TOKEN_REQUEST_URL",
                "ACTIONS_RUNTIME_TOKEN",
                "AGENTEVAL_JUDGE_API_KEY",
                "GH_TOKEN",
                "GITHUB_ENV",
                "GITHUB_TOKEN"
            ]
        );
    }
}
