//! The action's setup steps, run with bash: `paths` (the report path),
//! `download` (a release binary from a fake server, or the fallback) and
//! `build` (an exact cache hit, or the missing-cargo error).

use std::path::Path;
use std::process::Command;

use pretty_assertions::assert_eq;

use super::action::run_step;
use super::harness::read_outputs;
use crate::common::outputs;

#[test]
fn the_paths_step_resolves_the_report_path() {
    let dir = tempfile::tempdir().unwrap();
    let temp = dir.path().join("runner_temp");
    let github_output = dir.path().join("out");
    let run = |command: &str, report: &str| {
        run_step(
            "paths",
            dir.path(),
            &[
                ("INPUT_COMMAND", command.into()),
                ("INPUT_REPORT_PATH", report.into()),
                ("RUNNER_TEMP", temp.to_str().unwrap().into()),
                ("GITHUB_OUTPUT", github_output.to_str().unwrap().into()),
            ],
        )
    };
    assert_eq!(run("compare", "").status.code(), Some(0));
    assert_eq!(run("comment", "reports/c.json").status.code(), Some(0));
    let outs = read_outputs(&github_output);
    let real = |p: &Path| p.to_str().unwrap().to_owned();
    assert_eq!(outs[0].1, real(&temp.join("agenteval-gate/compare.json")));
    assert_eq!(outs[1].1, real(&dir.path().join("reports/c.json")));
    assert!(dir.path().join("reports").is_dir());

    let no_report = run("comment", "");
    assert_eq!(no_report.status.code(), Some(64));
    assert!(
        outputs(&no_report)
            .0
            .starts_with("::error title=agenteval-gate::`command: comment` needs")
    );
    assert_eq!(run("deploy", "").status.code(), Some(64));
}

#[test]
fn the_build_step_reuses_an_exact_cache_hit_and_needs_cargo_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("target/release/agenteval-gate");
    std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
    std::fs::write(&bin, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&bin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let github_output = dir.path().join("out");
    // An empty PATH: no cargo, no rustup, only bash builtins.
    let empty = dir.path().join("empty-path");
    std::fs::create_dir(&empty).unwrap();
    let run = |exact_hit: &str| {
        run_step(
            "build",
            dir.path(),
            &[
                ("PATH", empty.to_str().unwrap().into()),
                (
                    "TARGET_DIR",
                    dir.path().join("target").to_str().unwrap().into(),
                ),
                ("EXACT_HIT", exact_hit.into()),
                ("GITHUB_ACTION_PATH", dir.path().to_str().unwrap().into()),
                ("GITHUB_OUTPUT", github_output.to_str().unwrap().into()),
            ],
        )
    };

    let hit = run("true");
    assert_eq!(hit.status.code(), Some(0), "{:?}", outputs(&hit));
    assert_eq!(
        read_outputs(&github_output),
        [("bin".to_owned(), bin.to_str().unwrap().to_owned())]
    );

    let miss = run("false");
    assert_eq!(miss.status.code(), Some(1));
    assert!(
        outputs(&miss)
            .0
            .starts_with("::error title=agenteval-gate::cargo is not installed"),
        "{:?}",
        outputs(&miss)
    );
}

#[tokio::test]
async fn the_download_step_fetches_a_release_or_falls_back_with_a_warning() {
    let server = wiremock::MockServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    // A release asset: a tarball holding an executable `agenteval-gate`.
    let staging = dir.path().join("staging");
    std::fs::create_dir(&staging).unwrap();
    let exe = staging.join("agenteval-gate");
    std::fs::write(&exe, "#!/bin/sh\necho released\n").unwrap();
    std::fs::set_permissions(&exe, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let tarball = dir.path().join("asset.tar.gz");
    let tar = Command::new("tar")
        .arg("-czf")
        .arg(&tarball)
        .arg("-C")
        .arg(&staging)
        .arg("agenteval-gate")
        .status()
        .unwrap();
    assert!(tar.success());
    wiremock::Mock::given(wiremock::matchers::path(
        "/agenteval-gate/agenteval-gate/releases/download/v0.1.0/agenteval-gate-x86_64-unknown-linux-gnu.tar.gz",
    ))
    .respond_with(wiremock::ResponseTemplate::new(200).set_body_bytes(std::fs::read(&tarball).unwrap()))
    .mount(&server)
    .await;

    let temp = dir.path().join("runner_temp");
    std::fs::create_dir(&temp).unwrap();
    let run = |version: &str, os: &str| {
        let github_output = dir
            .path()
            .join(format!("out-{os}-{}", version.replace('/', "_")));
        let out = run_step(
            "download",
            dir.path(),
            &[
                ("VERSION", version.into()),
                ("ACTION_REPOSITORY", String::new()),
                ("SERVER_URL", server.uri()),
                ("RUNNER_OS", os.into()),
                ("RUNNER_ARCH", "X64".into()),
                ("RUNNER_TEMP", temp.to_str().unwrap().into()),
                ("GITHUB_OUTPUT", github_output.to_str().unwrap().into()),
            ],
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "never fails: {:?}",
            outputs(&out)
        );
        let written = std::fs::read_to_string(&github_output).unwrap_or_default();
        (outputs(&out).0, written)
    };

    let (_, written) = run("v0.1.0", "Linux");
    let bin = temp.join("agenteval-gate-v0.1.0/agenteval-gate");
    assert_eq!(written, format!("bin={}\n", bin.display()));
    let ran = Command::new(&bin).output().unwrap();
    assert_eq!(outputs(&ran).0, "released\n");

    let (stdout, written) = run("v9.9.9", "Linux");
    assert_eq!(written, "", "no binary: the source build runs");
    assert!(
        stdout.starts_with("::warning title=agenteval-gate::cannot download "),
        "{stdout}"
    );
    let (stdout, written) = run("v0.1.0", "Windows");
    assert_eq!(written, "");
    assert!(
        stdout.contains("no release binary for version `v0.1.0` on Windows-X64"),
        "{stdout}"
    );
    let (stdout, written) = run("../../etc", "Linux");
    assert_eq!(written, "");
    assert!(
        stdout.contains("no release binary for version `../../etc`"),
        "{stdout}"
    );
}
