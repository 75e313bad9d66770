//! Issue 23, item 10: the README's and suites/README's commands run as written. Every
//! `cargo run … -- ARGS` line of their `sh` blocks (with `\` continuations and `VAR=value`
//! prefixes) runs, in order, against a copy of the repository's suites and baselines with the
//! binary under test. None may end in a usage, input or config error or a crash: each exits 0
//! or 2 (a verdict), or exactly the code its `# exit N` comment names.

#![expect(
    clippy::unwrap_used,
    reason = "test fixtures panic when their setup fails"
)]

use std::path::Path;

use crate::common::{copy_dir, outputs, repo};

/// One documented command: `VAR=value` pairs, the arguments after `--`, the exit code its
/// comment names.
#[derive(Debug)]
struct Documented {
    source: String,
    env: Vec<(String, String)>,
    args: Vec<String>,
    exit: Option<i32>,
}

/// The `cargo run` commands of the `sh` blocks of `file`.
fn commands(file: &str) -> Vec<Documented> {
    let text = std::fs::read_to_string(repo().join(file)).unwrap();
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_sh = !in_sh && (line == "```sh" || line == "```bash");
            continue;
        }
        if !in_sh {
            continue;
        }
        if let Some(head) = line.strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(line);
        let full = std::mem::take(&mut pending);
        let (command, comment) = full.split_once(" # ").unwrap_or((&full, ""));
        let words: Vec<&str> = command.split_whitespace().collect();
        let Some(cargo) = words.iter().position(|w| *w == "cargo") else {
            continue;
        };
        if words.get(cargo + 1) != Some(&"run") {
            continue;
        }
        let env = words[..cargo]
            .iter()
            .map(|w| {
                let (k, v) = w
                    .split_once('=')
                    .unwrap_or_else(|| panic!("{file}: {full}"));
                (k.to_owned(), v.to_owned())
            })
            .collect();
        let dashes = words
            .iter()
            .position(|w| *w == "--")
            .unwrap_or_else(|| panic!("{file}: {full}"));
        let exit = comment
            .split_whitespace()
            .collect::<Vec<_>>()
            .windows(2)
            .find(|w| w[0] == "exit")
            .and_then(|w| {
                w[1].trim_end_matches(|c: char| !c.is_ascii_digit())
                    .parse()
                    .ok()
            });
        out.push(Documented {
            source: format!("{file}: {}", command.trim()),
            env,
            args: words[dashes + 1..]
                .iter()
                .map(|w| (*w).to_owned())
                .collect(),
            exit,
        });
    }
    out
}

fn run(dir: &Path, c: &Documented) -> (Option<i32>, String) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agenteval-gate"));
    for (k, _) in std::env::vars() {
        if k.starts_with("AGENTEVAL_") || k.starts_with("GITHUB_") || k == "CI" {
            cmd.env_remove(k);
        }
    }
    cmd.current_dir(dir).env("NO_COLOR", "1").args(&c.args);
    for (k, v) in &c.env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let (stdout, stderr) = outputs(&out);
    (out.status.code(), format!("{stdout}\n{stderr}"))
}

#[test]
fn the_readme_commands_run_as_written() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["suites", "baselines"] {
        copy_dir(&repo().join(sub), &dir.path().join(sub));
    }
    let mut seen = 0;
    for file in ["README.md", "suites/README.md"] {
        let documented = commands(file);
        assert!(!documented.is_empty(), "{file} has `cargo run` commands");
        for c in documented {
            let (code, output) = run(dir.path(), &c);
            match c.exit {
                Some(expected) => assert_eq!(code, Some(expected), "{}\n{output}", c.source),
                None => assert!(
                    matches!(code, Some(0 | 2)),
                    "{} exited {code:?}\n{output}",
                    c.source
                ),
            }
            seen += 1;
        }
    }
    assert!(seen >= 10, "{seen} commands");
}
