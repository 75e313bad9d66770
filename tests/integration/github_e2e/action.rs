//! `action.yml`: its declared interface, and the helpers that run its shell
//! steps with bash exactly as the runner would (`bash --noprofile --norc -eo
//! pipefail`), with the env the step declares (`action_install`, `action_gate`).

#![expect(
    clippy::unwrap_used,
    reason = "test fixtures panic when their setup fails"
)]

use std::path::Path;
use std::process::{Command, Output};

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::workflows::yaml;

pub(super) fn step<'a>(action: &'a Value, id: &str) -> &'a Value {
    action["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no step `{id}`"))
}

#[test]
fn the_interface_is_the_documented_one() {
    let action = yaml("action.yml");
    assert_eq!(action["runs"]["using"], "composite");
    let inputs = action["inputs"].as_object().unwrap();
    for (name, default) in [
        ("command", "compare"),
        ("suites", ""),
        ("baseline", "main"),
        ("fail-on", ""),
        ("github-token", "${{ github.token }}"),
        ("comment", "true"),
        ("judge", ""),
        ("judge-model", ""),
        ("judge-base-url", ""),
        ("extra-args", ""),
        ("version", ""),
        ("require-baseline", "false"),
        ("baseline-branch", ""),
        ("rules-ref", ""),
        ("working-directory", "."),
        ("report-path", ""),
        ("artifact-name", "agenteval-gate-report"),
        ("pr", ""),
    ] {
        assert_eq!(inputs[name]["default"], default, "input {name}");
        assert_eq!(inputs[name]["required"], false, "input {name}");
    }
    assert_eq!(inputs.len(), 18, "{:?}", inputs.keys());
    assert!(
        inputs["judge"]["description"]
            .as_str()
            .unwrap()
            .contains("persist the judge cache with `actions/cache`")
    );
    for (name, from) in [
        ("verdict", "verdict"),
        ("regressions", "regressions"),
        ("report-path", "report-path"),
        ("exit-code", "exit-code"),
        ("commit", "commit"),
    ] {
        assert_eq!(
            action["outputs"][name]["value"],
            format!("${{{{ steps.gate.outputs.{from} }}}}")
        );
    }

    let steps = action["runs"]["steps"].as_array().unwrap();
    for s in steps {
        if let Some(script) = s["run"].as_str() {
            assert_eq!(s["shell"], "bash", "{}", s["name"]);
            // Inputs reach scripts through `env:` only: no expression can inject shell.
            assert!(!script.contains("${{"), "{}", s["name"]);
        }
        if let Some(action) = s["uses"].as_str() {
            assert!(action.starts_with("actions/"), "{action}");
            super::workflows::assert_pinned("action.yml", action);
        }
    }
    // The install step resolves the action's own repository and ref; it
    // names no repository of its own.
    let install = step(&action, "install");
    assert_eq!(
        install["env"]["ACTION_REPOSITORY"],
        "${{ github.action_repository }}"
    );
    assert_eq!(install["env"]["ACTION_REF"], "${{ github.action_ref }}");
    let script =
        std::fs::read_to_string(crate::common::repo().join("scripts/action-install.sh")).unwrap();
    assert!(!script.contains("agenteval-gate/agenteval-gate"));
    for id in ["cache-key", "cache", "build"] {
        assert_eq!(
            step(&action, id)["if"],
            "steps.install.outputs.source == 'build'",
            "{id}"
        );
    }
    let cache = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/cache@"))
        })
        .unwrap();
    let paths = cache["with"]["path"].as_str().unwrap();
    assert!(paths.contains("~/.cargo/registry/cache/"), "{paths}");
    assert!(
        paths.contains("steps.cache-key.outputs.target-dir"),
        "{paths}"
    );
    let upload = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact@"))
        })
        .unwrap();
    assert!(upload["if"].as_str().unwrap().starts_with("always() && "));
    assert_eq!(upload["with"]["path"], "${{ steps.paths.outputs.report }}");
    assert_eq!(
        step(&action, "gate")["env"]["GITHUB_TOKEN"],
        "${{ inputs.github-token }}"
    );
}

/// bash, found on this process's `PATH`.
fn bash() -> std::path::PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|dir| dir.join("bash"))
        .find(|p| p.is_file())
        .unwrap()
}

/// Run step `id` of action.yml with bash in `cwd` and `env` (nothing
/// inherited; `PATH` is this process's unless `env` sets it).
pub(super) fn run_step(id: &str, cwd: &Path, env: &[(&str, String)]) -> Output {
    let action = yaml("action.yml");
    let script = step(&action, id)["run"].as_str().unwrap().to_owned();
    let mut cmd = Command::new(bash());
    cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c", &script])
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap())
        .env("NO_COLOR", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}
