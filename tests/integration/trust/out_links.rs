//! Issue 25, item 5: `--out` never writes through a link a pull request
//! committed. `compare.json -> ../victim.txt` used to overwrite the victim;
//! now a link is followed only to a FIFO or a character device, and a
//! directory link that leads out of the working directory is refused.

use std::path::Path;

use super::expect;
use crate::common::{bin, git, repo};

/// A checkout whose last commit holds `compare.json -> ../victim.txt`,
/// `report.md -> /abs/victim.txt` and `out -> ../outside/`, next to the
/// victim and the outside directory.
fn hostile_checkout(root: &Path) -> std::path::PathBuf {
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(root.join("outside")).unwrap();
    std::fs::write(root.join("victim.txt"), "precious\n").unwrap();
    std::os::unix::fs::symlink("../victim.txt", work.join("compare.json")).unwrap();
    std::os::unix::fs::symlink(root.join("victim.txt"), work.join("report.md")).unwrap();
    std::os::unix::fs::symlink("../outside", work.join("out")).unwrap();
    git(&work, &["init", "-q"]);
    git(&work, &["add", "."]);
    git(&work, &["commit", "-qm", "a pull request"]);
    assert!(git(&work, &["ls-files", "-s", "compare.json"]).starts_with("120000"));
    work
}

fn compare_in(work: &Path, out: &str) -> std::process::Output {
    bin()
        .current_dir(work)
        .arg("compare")
        .arg("--suites-dir")
        .arg(repo().join("suites"))
        .arg("--baselines-dir")
        .arg(repo().join("baselines"))
        .args([
            "--baseline",
            "main",
            "--suite",
            "support-bot",
            "--deterministic",
            "--quiet",
            "--format",
            "table",
            "--out",
            out,
        ])
        .output()
        .unwrap()
}

#[test]
fn a_committed_link_is_never_written_through() {
    let root = tempfile::tempdir().unwrap();
    let work = hostile_checkout(root.path());
    let victim = root.path().join("victim.txt");

    let (_, stderr) = expect(&compare_in(&work, "compare.json"), 74);
    assert!(
        stderr.contains("`compare.json` is a symbolic link to `../victim.txt`"),
        "{stderr}"
    );
    assert!(stderr.contains("hint: remove the link"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    assert!(
        std::fs::symlink_metadata(work.join("compare.json"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link is left as it was"
    );

    // A directory link out of the checkout: nothing is created outside.
    let (_, stderr) = expect(&compare_in(&work, "out/compare.json"), 74);
    assert!(
        stderr.contains("`out` leads outside the working directory"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_dir(root.path().join("outside"))
            .unwrap()
            .count(),
        0
    );
    let (_, stderr) = expect(&compare_in(&work, "out/new/dir/compare.json"), 74);
    assert!(stderr.contains("leads outside"), "{stderr}");
    assert!(!root.path().join("outside/new").exists());

    // Every command's `--out` goes through the same check: `run`, `report`.
    let run = bin()
        .current_dir(&work)
        .arg("run")
        .arg("--suites-dir")
        .arg(repo().join("suites"))
        .args(["--suite", "support-bot", "--deterministic", "--quiet"])
        .args(["--out", "compare.json"])
        .output()
        .unwrap();
    expect(&run, 74);
    let saved = root.path().join("saved.json");
    let run = bin()
        .current_dir(&work)
        .arg("run")
        .arg("--suites-dir")
        .arg(repo().join("suites"))
        .args([
            "--suite",
            "support-bot",
            "--deterministic",
            "--quiet",
            "--out",
        ])
        .arg(&saved)
        .output()
        .unwrap();
    expect(&run, 0);
    let report = bin()
        .current_dir(&work)
        .args(["report", "--format", "markdown", "--out", "report.md"])
        .arg(&saved)
        .output()
        .unwrap();
    let (_, stderr) = expect(&report, 74);
    assert!(stderr.contains("is a symbolic link to"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");

    // A plain file in the checkout is still written (atomically).
    let (_, _) = expect(&compare_in(&work, "fresh.json"), 0);
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(work.join("fresh.json")).unwrap()).unwrap();
    assert_eq!(written["verdict"], "pass");
}

/// A link to a character device (`/dev/null`) is how a workflow discards
/// the report: it is still written through.
#[test]
fn a_link_to_a_device_is_still_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("discard.json");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    expect(&compare_in(dir.path(), link.to_str().unwrap()), 0);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// `--artifacts DIR` inside the working directory: a link committed under it
/// (`DIR/<suite>/work -> /elsewhere`, or `…/traces`) is refused before any
/// agent starts, and nothing is written at its target.
#[test]
fn artifacts_never_follow_a_committed_link_out() {
    for sub in ["work", "traces"] {
        let s = crate::runner::AgentSuite::new("", &[("ok-1", "ok")]);
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(s.path("arts/agents")).unwrap();
        std::os::unix::fs::symlink(outside.path(), s.path(&format!("arts/agents/{sub}"))).unwrap();
        let (out, _) = s.run(&["--artifacts", "arts"]);
        let (_, stderr) = expect(&out, 74);
        assert!(
            stderr.contains(&format!(
                "`arts/agents/{sub}` leads outside the working directory"
            )),
            "{sub}: {stderr}"
        );
        assert!(
            std::fs::read_dir(outside.path()).unwrap().next().is_none(),
            "{sub}: nothing is written through the link"
        );
        assert!(s.log().is_empty(), "{sub}: no agent started");
    }
    // Without the link the same run works and keeps its artifacts there.
    let s = crate::runner::AgentSuite::new("", &[("ok-1", "ok")]);
    let (out, _) = s.run(&["--artifacts", "arts"]);
    expect(&out, 0);
    assert!(s.path("arts/agents/work/ok-1/input.json").is_file());
}
