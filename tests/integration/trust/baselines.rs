//! Item 6: a lock serialises `baseline update`; the baseline and its
//! history change as one unit. Two concurrent updates used to lose a
//! history line 17 times in 20; random SIGKILLs desynchronised the pair and
//! left temp files.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::Value;

use super::expect;
use crate::common::{bin, repo};

/// Two run reports of support-bot with different metrics (its own traces
/// and the regressed ones), written once.
fn reports() -> &'static [PathBuf; 2] {
    static REPORTS: std::sync::OnceLock<(tempfile::TempDir, [PathBuf; 2])> =
        std::sync::OnceLock::new();
    &REPORTS
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let mut paths = Vec::new();
            for (name, traces, evidence) in [
                ("a.json", "traces", "evidence"),
                ("b.json", "traces-regressed", "evidence-regressed"),
            ] {
                let path = dir.path().join(name);
                let out = bin()
                    .current_dir(repo())
                    .args([
                        "run",
                        "--suite",
                        "support-bot",
                        "--deterministic",
                        "--format",
                        "json",
                    ])
                    .arg("--traces")
                    .arg(format!("suites/support-bot/{traces}"))
                    .arg("--evidence")
                    .arg(format!("suites/support-bot/{evidence}"))
                    .arg("--out")
                    .arg(&path)
                    .output()
                    .unwrap();
                assert!(matches!(out.status.code(), Some(0 | 2)), "{out:?}");
                paths.push(path);
            }
            let paths: [PathBuf; 2] = paths.try_into().unwrap();
            (dir, paths)
        })
        .1
}

fn update(baselines: &Path, report: &Path) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("agenteval-gate"));
    cmd.args([
        "--isolated",
        "baseline",
        "update",
        "--name",
        "main",
        "--deterministic",
    ])
    .args(["--history-cap", "1000", "--baselines-dir"])
    .arg(baselines)
    .arg("--from-report")
    .arg(report)
    .env_remove("GITHUB_SHA")
    .env_remove("GITHUB_REF")
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    cmd
}

/// The committed state: (update number, history lines ≤ it), after checking
/// that the pair is consistent and only hidden temp files lie around.
fn committed(baselines: &Path) -> (u64, usize) {
    let dir = baselines.join("main");
    for entry in std::fs::read_dir(&dir).into_iter().flatten() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            name == "support-bot.json"
                || name == "support-bot.history.jsonl"
                || (name.starts_with('.') && name.ends_with(".agenteval-tmp")),
            "unexpected file {name}"
        );
    }
    let baseline: Option<Value> = std::fs::read_to_string(dir.join("support-bot.json"))
        .ok()
        .map(|t| serde_json::from_str(&t).expect("the baseline file is always whole"));
    let history: Vec<Value> = std::fs::read_to_string(dir.join("support-bot.history.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every history line is whole"))
        .collect();
    let c = baseline
        .as_ref()
        .map_or(0, |b| b["baseline"]["update"].as_u64().unwrap());
    let numbers: Vec<u64> = history
        .iter()
        .map(|l| l["update"].as_u64().unwrap())
        .collect();
    let kept: Vec<u64> = numbers.iter().copied().filter(|&n| n <= c).collect();
    assert_eq!(
        kept,
        (1..=c).collect::<Vec<_>>(),
        "every committed update, once, in order"
    );
    let extra: Vec<u64> = numbers.iter().copied().filter(|&n| n > c).collect();
    assert!(
        extra.is_empty() || extra == [c + 1],
        "at most one uncommitted line: {numbers:?}"
    );
    if let Some(b) = &baseline {
        let last = history.iter().find(|l| l["update"] == c).unwrap();
        assert_eq!(
            last["metrics"], b["report"]["aggregate"]["metrics"],
            "the pair matches"
        );
    }
    (c, kept.len())
}

fn temp_files(baselines: &Path) -> usize {
    std::fs::read_dir(baselines.join("main")).map_or(0, |d| {
        d.filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".agenteval-tmp")
        })
        .count()
    })
}

/// 20 trials of three updates at once: every update is in the history.
#[test]
fn concurrent_updates_lose_nothing() {
    let [a, b] = reports();
    for trial in 0..20 {
        let dir = tempfile::tempdir().unwrap();
        let children: Vec<_> = [a, b, a]
            .iter()
            .map(|r| update(dir.path(), r).spawn().unwrap())
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "trial {trial}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        assert_eq!(committed(dir.path()), (3, 3), "trial {trial}");
        assert_eq!(temp_files(dir.path()), 0);
    }
}

/// 100 updates, each killed with SIGKILL at a random moment (most mid-write): after
/// every kill the pair is consistent; the next update removes the temp
/// files a kill left; nothing committed is ever lost.
#[test]
fn sigkill_at_any_moment_leaves_a_consistent_pair() {
    let [a, b] = reports();
    let dir = tempfile::tempdir().unwrap();
    // How long one update takes here, to spread the kills over it.
    let started = Instant::now();
    for r in [a, b, a] {
        assert!(update(dir.path(), r).status().unwrap().success());
    }
    let typical = started.elapsed() / 3;
    assert_eq!(committed(dir.path()), (3, 3));

    let mut seed: u64 = 0x5eed;
    let mut last = 3;
    let mut finished = 0;
    let mut killed_mid_write = 0;
    for trial in 0..100 {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let fraction = (seed >> 33) as f64 / f64::from(1u32 << 31);
        let delay = typical.mul_f64(1.2 * fraction);
        let before_temps = temp_files(dir.path());
        let mut child = update(dir.path(), if trial % 2 == 0 { b } else { a })
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill(); // SIGKILL
        let status = child.wait().unwrap();
        finished += usize::from(status.success());
        let (c, _) = committed(dir.path());
        assert!(c == last || c == last + 1, "trial {trial}: {last} → {c}");
        if c == last && !status.success() && temp_files(dir.path()) > before_temps {
            killed_mid_write += 1;
        }
        last = c;
    }
    // Every update that reported success is committed.
    assert!(last >= 3 + finished as u64, "{last} < 3 + {finished}");
    // The kills did land inside writes (the test is not vacuous).
    assert!(
        killed_mid_write + (100 - finished) > 10,
        "{killed_mid_write} / {finished}"
    );
    // One more update sweeps whatever a kill left.
    let out = update(dir.path(), a).output().unwrap();
    assert!(out.status.success());
    assert_eq!(committed(dir.path()).0, last + 1);
    assert_eq!(temp_files(dir.path()), 0, "no stray temp files");

    // The gate reads the same committed history.
    let out = bin()
        .args([
            "baseline",
            "show",
            "--name",
            "main",
            "--json",
            "--baselines-dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let (stdout, _) = expect(&out, 0);
    let shown: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(shown[0]["history_points"], last + 1);
}
