//! Item 4 (and issue 25, items 2 and 3): run-mode agents get a scrubbed
//! environment: no GitHub tokens, no Actions runtime tokens, no runner file
//! commands, whatever the suite says, and no judge keys unless
//! `agent.env_passthrough` names them. No GitHub/Actions name is a judge key.

use std::net::TcpListener;
use std::path::Path;

use super::expect;
use crate::judge::support::{JudgeSuite, SUITE, judge_bin};
use crate::runner::AgentSuite;

const SECRETS: [&str; 10] = [
    "GITHUB_TOKEN",
    "AGENTEVAL_GITHUB_TOKEN",
    "GH_TOKEN",
    "GH_ENTERPRISE_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "AGENTEVAL_JUDGE_API_KEY",
];

/// The runner's file commands, set in the gate's environment to files of
/// the test (an agent holding one could rewrite later steps' environment).
const FILE_COMMANDS: [&str; 5] = [
    "GITHUB_ENV",
    "GITHUB_PATH",
    "GITHUB_OUTPUT",
    "GITHUB_STATE",
    "GITHUB_STEP_SUMMARY",
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
        .env("KEEP_ME", "1")
        .env("GITHUB_SHA", "0123abc");
    for k in SECRETS {
        cmd.env(k, "s3cret");
    }
    for k in FILE_COMMANDS {
        cmd.env(k, s.path(&k.to_ascii_lowercase()));
    }
    let out = cmd.output().unwrap();
    let (_, stderr) = expect(&out, 0);
    let names = std::fs::read_to_string(env_dir.join("c1.env")).unwrap();
    (names.lines().map(str::to_owned).collect(), stderr)
}

#[test]
fn agents_never_see_tokens_or_judge_keys() {
    let (seen, stderr) = env_seen("");
    for k in SECRETS.iter().chain(&FILE_COMMANDS) {
        assert!(!seen.iter().any(|s| s == k), "the agent saw `{k}`");
    }
    assert!(seen.iter().any(|s| s == "KEEP_ME"), "other variables pass");
    assert!(seen.iter().any(|s| s == "GITHUB_SHA"), "so does CI context");
    assert!(seen.iter().any(|s| s == "AGENTEVAL_CASE_ID"));
    assert!(
        stderr.contains("runs without `ACTIONS_ID_TOKEN_REQUEST_TOKEN`"),
        "{stderr}"
    );
    assert!(!stderr.contains("s3cret"), "no secret value is printed");
}

#[test]
fn env_passthrough_lets_named_secrets_through() {
    let (seen, stderr) = env_seen("  env_passthrough: [OPENAI_API_KEY, KEEP_ME]\n");
    assert!(seen.iter().any(|s| s == "OPENAI_API_KEY"));
    assert!(
        seen.iter().any(|s| s == "KEEP_ME"),
        "a harmless name passes"
    );
    for k in SECRETS
        .iter()
        .chain(&FILE_COMMANDS)
        .filter(|k| **k != "OPENAI_API_KEY")
    {
        assert!(!seen.iter().any(|s| s == k), "the agent saw `{k}`");
    }
    assert!(!stderr.contains("`OPENAI_API_KEY`"), "{stderr}");
}

/// Issue 25, item 3: a pull request's `env_passthrough: [GITHUB_TOKEN, …]`
/// or `agent.env: {GITHUB_ENV: …}` is refused at load (78), at its line,
/// and the agent never starts.
#[test]
fn a_passthrough_of_a_token_or_a_runner_file_is_refused_at_its_line() {
    let s = AgentSuite::new(
        "  env: {AGENT_VARIANT: x, GITHUB_ENV: /tmp/env}\n  env_passthrough:\n    - OPENAI_API_KEY\n    - GITHUB_TOKEN\n    - GH_TOKEN\n    - ACTIONS_RUNTIME_TOKEN\n    - AGENTEVAL_GITHUB_TOKEN\n    - GITHUB_STEP_SUMMARY\n",
        &[("c1", "ok")],
    );
    let yaml = std::fs::read_to_string(s.path("suites/agents/suite.yaml")).unwrap();
    let line_of = |needle: &str| {
        1 + yaml
            .lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle} not in the suite"))
    };
    for command in [
        &["lint", "--suite", "agents"][..],
        &["run", "--suite", "agents"],
    ] {
        let out = crate::common::bin()
            .current_dir(s.dir.path())
            .env("AGENT_LOG", s.path("agent.log"))
            .args(command)
            .output()
            .unwrap();
        let (_, stderr) = expect(&out, 78);
        for (name, what) in [
            ("GITHUB_TOKEN", "a GitHub/Actions credential"),
            ("GH_TOKEN", "a GitHub/Actions credential"),
            ("ACTIONS_RUNTIME_TOKEN", "a GitHub/Actions credential"),
            ("AGENTEVAL_GITHUB_TOKEN", "a GitHub/Actions credential"),
            (
                "GITHUB_STEP_SUMMARY",
                "a file command of the Actions runner",
            ),
        ] {
            assert!(
                stderr.contains(&format!(
                    "`agent.env_passthrough` names `{name}`, {what}: an agent never receives it"
                )),
                "{command:?} {name}: {stderr}"
            );
            let at = format!("suite.yaml:{}:", line_of(&format!("- {name}")));
            assert!(stderr.contains(&at), "{command:?} {name} at {at}: {stderr}");
        }
        assert!(
            stderr.contains("`agent.env` names `GITHUB_ENV`, a file command of the Actions runner"),
            "{stderr}"
        );
        assert!(stderr.contains(&format!("suite.yaml:{}:", line_of("GITHUB_ENV"))));
        assert!(stderr.contains("remove `GH_TOKEN` from `agent.env_passthrough`"));
        assert!(
            !stderr.contains("`OPENAI_API_KEY`"),
            "a judge key may pass: {stderr}"
        );
    }
    assert!(!s.path("agent.log").exists(), "no agent started");
}

/// Issue 25, item 2 (the part that does not need the base commit): no
/// GitHub/Actions name is a judge key source, in `agenteval.yaml`'s
/// primary or a fallback. The config is refused (78) before any request:
/// a listener on the configured base URL is never connected to.
#[test]
fn no_github_or_actions_name_is_a_judge_key_source() {
    let s = JudgeSuite::new("{}", &["c1", "c2"]);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    for name in [
        "GH_TOKEN",
        "GH_ENTERPRISE_TOKEN",
        "GITHUB_TOKEN",
        "GITHUB_OUTPUT",
        "ACTIONS_RUNTIME_TOKEN",
        "RUNNER_TEMP",
    ] {
        for judge in [
            format!("{{provider: openai, model: m, base_url: '{url}', api_key_env: {name}}}"),
            format!(
                "{{provider: openai, model: m, base_url: '{url}', api_key_env: MY_KEY, fallback: [{{provider: openai, model: m, base_url: '{url}', api_key_env: {name}}}]}}"
            ),
        ] {
            let config = s.config(&judge);
            let (out, report) = judged_run(&s, &config, &[(name, "s3cret-key"), ("MY_KEY", "k")]);
            let (_, stderr) = expect(&out, 78);
            assert!(report.is_none(), "{judge}");
            assert!(
                stderr.contains(&format!("names `{name}`"))
                    && stderr.contains("never sent to a judge"),
                "{judge}: {stderr}"
            );
            assert!(
                stderr.contains("agenteval.yaml"),
                "names the file: {stderr}"
            );
            assert!(!stderr.contains("s3cret-key"), "{stderr}");
        }
    }
    assert!(
        listener
            .accept()
            .is_err_and(|e| e.kind() == std::io::ErrorKind::WouldBlock),
        "the judge's base URL was connected to"
    );
    drop(listener);
    // The same config with the judge's own key variable is accepted (the
    // port is closed now: the judge is unavailable, which is not a 78).
    let config = s.config(&format!(
        "{{provider: openai, model: m, base_url: '{url}', api_key_env: MY_KEY, retries: 0, timeout_s: 1}}"
    ));
    let (out, _) = judged_run(&s, &config, &[("MY_KEY", "k")]);
    let (_, stderr) = crate::common::outputs(&out);
    assert_ne!(out.status.code(), Some(78), "{stderr}");
    assert!(!stderr.contains("never sent to a judge"), "{stderr}");
}

/// `run` of the judged suite under `config`, with `env` set.
fn judged_run(
    s: &JudgeSuite,
    config: &Path,
    env: &[(&str, &str)],
) -> (std::process::Output, Option<serde_json::Value>) {
    let out_file = s.path("report.json");
    let _ignored = std::fs::remove_file(&out_file);
    let mut cmd = judge_bin(config);
    cmd.args(["run", "--suites-dir"])
        .arg(s.dir.path())
        .args(["--suite", SUITE, "--deterministic", "--out"])
        .arg(&out_file);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let report = std::fs::read(&out_file)
        .ok()
        .map(|b| serde_json::from_slice(&b).unwrap());
    (out, report)
}
