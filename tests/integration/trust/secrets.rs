//! Item 4: run-mode agents get a scrubbed environment: no GitHub tokens, no
//! Actions runtime tokens, no judge keys, unless `agent.env_passthrough`
//! names them.

use super::expect;
use crate::runner::AgentSuite;

const SECRETS: [&str; 9] = [
    "GITHUB_TOKEN",
    "AGENTEVAL_GITHUB_TOKEN",
    "GH_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "AGENTEVAL_JUDGE_API_KEY",
];

fn env_seen(passthrough: &str) -> (Vec<String>, String) {
    let s = AgentSuite::new(passthrough, &[("c1", "env")]);
    let env_dir = s.path("env");
    std::fs::create_dir_all(&env_dir).unwrap();
    let mut cmd = crate::common::bin();
    cmd.current_dir(s.dir.path())
        .args([
            "run",
            "--suite",
            "agents",
            "--deterministic",
            "--format",
            "json",
        ])
        .env("AGENT_ENV_OUT", &env_dir)
        .env("KEEP_ME", "1");
    for k in SECRETS {
        cmd.env(k, "s3cret");
    }
    let out = cmd.output().unwrap();
    let (_, stderr) = expect(&out, 0);
    let names = std::fs::read_to_string(env_dir.join("c1.env")).unwrap();
    (names.lines().map(str::to_owned).collect(), stderr)
}

#[test]
fn agents_never_see_tokens_or_judge_keys() {
    let (seen, stderr) = env_seen("");
    for k in SECRETS {
        assert!(!seen.iter().any(|s| s == k), "the agent saw `{k}`");
    }
    assert!(seen.iter().any(|s| s == "KEEP_ME"), "other variables pass");
    assert!(seen.iter().any(|s| s == "AGENTEVAL_CASE_ID"));
    assert!(
        stderr.contains("runs without `ACTIONS_ID_TOKEN_REQUEST_TOKEN`"),
        "{stderr}"
    );
    assert!(!stderr.contains("s3cret"), "no secret value is printed");
}

#[test]
fn env_passthrough_lets_named_secrets_through() {
    let (seen, stderr) = env_seen("  env_passthrough: [OPENAI_API_KEY]\n");
    assert!(seen.iter().any(|s| s == "OPENAI_API_KEY"));
    for k in SECRETS.iter().filter(|k| **k != "OPENAI_API_KEY") {
        assert!(!seen.iter().any(|s| s == k), "the agent saw `{k}`");
    }
    assert!(!stderr.contains("`OPENAI_API_KEY`"), "{stderr}");
}
