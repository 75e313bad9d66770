//! Run mode end to end through the real binary: the fixture agent in
//! `tests/fixtures/agents/agent.py` (behaviour chosen per case), process
//! groups and timeouts, retries, the concurrency limit, shards and merge,
//! and progressive tiers on the support-bot example agent.

#![expect(clippy::unwrap_used, reason = "test helpers fail loudly")]

mod agents;
mod failures;
mod limits;
mod progressive;
mod shards;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::common::{bin, fixture, outputs};

/// A suite in a temporary directory whose agent is the fixture agent.
pub(crate) struct AgentSuite {
    pub(crate) dir: tempfile::TempDir,
}

impl AgentSuite {
    /// `agent_extra` is YAML added to the `agent:` block (indented by 2);
    /// `cases` are (id, behaviour).
    pub(crate) fn new(agent_extra: &str, cases: &[(&str, &str)]) -> Self {
        let command = serde_json::json!([
            "python3",
            fixture("agents/agent.py"),
            "--input",
            "{input_file}",
            "--trace-out",
            "{trace_file}",
            "--case",
            "{case_id}",
            "--workdir",
            "{workdir}"
        ]);
        Self::with_command(&command.to_string(), agent_extra, cases)
    }

    pub(crate) fn with_command(command: &str, agent_extra: &str, cases: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut yaml = format!(
            "suite: agents\nspec_version: \"1.0.0\"\n\
             tools:\n  - name: lookup_account\n    schema: {{type: object, required: [account_id], properties: {{account_id: {{type: string}}}}}}\n\
             agent:\n  command: {command}\n{agent_extra}\
             checkpoints:\n  - id: P1-01\n    tier: 2\n    instruction: Look up the account before answering\n    severity: critical\n    evidence_sources: [trace]\n    sequence: {{before: {{tool: lookup_account}}, then: {{kind: llm, final: true}}}}\n\
             cases:\n"
        );
        for (id, behaviour) in cases {
            yaml.push_str(&format!(
                "  - {{id: {id}, input: \"What is my balance? A-17\", tags: [t1], metadata: {{behaviour: {behaviour}}}}}\n"
            ));
        }
        let suite = dir.path().join("suites/agents");
        std::fs::create_dir_all(&suite).unwrap();
        std::fs::write(suite.join("suite.yaml"), yaml).unwrap();
        Self { dir }
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// `run --suite agents --deterministic --out report.json` plus `extra`;
    /// the output and the report (when written).
    pub(crate) fn run(&self, extra: &[&str]) -> (Output, Option<Value>) {
        self.run_with(extra, &[])
    }

    /// [`Self::run`] with `env` set for the gate (and so its agents).
    pub(crate) fn run_with(
        &self,
        extra: &[&str],
        env: &[(&str, &Path)],
    ) -> (Output, Option<Value>) {
        let report = self.path("report.json");
        let _ = std::fs::remove_file(&report);
        let out = bin()
            .current_dir(self.dir.path())
            .env("AGENT_LOG", self.path("agent.log"))
            .envs(env.iter().copied())
            .args([
                "run",
                "--suite",
                "agents",
                "--deterministic",
                "--format",
                "json",
            ])
            .arg("--out")
            .arg(&report)
            .args(extra)
            .output()
            .unwrap();
        let json = std::fs::read_to_string(&report)
            .ok()
            .map(|t| serde_json::from_str(&t).unwrap());
        (out, json)
    }

    /// Lines the agents appended to `agent.log`.
    pub(crate) fn log(&self) -> Vec<String> {
        std::fs::read_to_string(self.path("agent.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

/// Assert the run exited with `code`, showing its output otherwise.
pub(crate) fn assert_code(out: &Output, code: i32) -> (String, String) {
    let (stdout, stderr) = outputs(out);
    assert_eq!(out.status.code(), Some(code), "{stdout}\n{stderr}");
    (stdout, stderr)
}

/// Whether process `pid` is gone (or a zombie nobody has reaped yet).
pub(crate) fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat")) {
        Err(_) => true,
        // `pid (comm) S …`: the state follows the last `)`.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
    }
}
