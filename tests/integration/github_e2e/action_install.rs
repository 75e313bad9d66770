//! The action's setup steps, run with bash: `paths` (the report path),
//! `install` (the release binary from release assets served on 127.0.0.1,
//! verified and cached, or the source-build fallback) and `build` (an exact
//! cache hit, or the missing-cargo error).
//!
//! The release assets here are made by the test: a tarball holding a shell
//! script named `agenteval-gate` that prints a version (a stand-in for the
//! binary; what is under test is how the action finds, verifies, caches and
//! refuses assets), the `SHA256SUMS` the release workflow writes, and `COMMIT`.

#![expect(
    clippy::unwrap_used,
    reason = "test fixtures panic when their setup fails"
)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pretty_assertions::assert_eq;
use wiremock::matchers::path;
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::action::run_step;
use super::harness::read_outputs;
use crate::common::{outputs, repo};

const VERSION: &str = env!("CARGO_PKG_VERSION");
const ASSET: &str = "agenteval-gate-x86_64-unknown-linux-musl.tar.gz";
const RELEASE_COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

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
    assert_eq!(run("baseline-update", "").status.code(), Some(0));
    let outs = read_outputs(&github_output);
    let real = |p: &Path| p.to_str().unwrap().to_owned();
    assert_eq!(outs[0].1, real(&temp.join("agenteval-gate/compare.json")));
    assert_eq!(outs[1].1, real(&dir.path().join("reports/c.json")));
    assert_eq!(
        outs[2],
        ("report".to_owned(), String::new()),
        "runs the suites"
    );
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

/// A release's assets, as the release workflow publishes them.
struct Release {
    tarball: Vec<u8>,
    sums: String,
}

/// A tarball whose `agenteval-gate` prints `agenteval-gate {prints}`.
fn release(dir: &Path, prints: &str) -> Release {
    let staging = dir.join(format!("staging-{prints}"));
    std::fs::create_dir_all(&staging).unwrap();
    let exe = staging.join("agenteval-gate");
    std::fs::write(&exe, format!("#!/bin/sh\necho 'agenteval-gate {prints}'\n")).unwrap();
    std::fs::set_permissions(&exe, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let tarball = dir.join(format!("{prints}.tar.gz"));
    let tar = Command::new("tar")
        .arg("-czf")
        .arg(&tarball)
        .arg("-C")
        .arg(&staging)
        .arg("agenteval-gate")
        .status()
        .unwrap();
    assert!(tar.success());
    let tarball = std::fs::read(&tarball).unwrap();
    let sum = agenteval_gate::digest::sha256_hex(&tarball);
    Release {
        sums: format!(
            "{}  agenteval-gate-aarch64-apple-darwin.tar.gz\n{sum}  {ASSET}\n",
            "ab".repeat(32)
        ),
        tarball,
    }
}

/// Serve `files` under `/acme/agenteval-gate/releases/download/{tag}/`;
/// anything else is a 404.
async fn serve(server: &MockServer, tag: &str, files: &[(&str, Vec<u8>)]) {
    server.reset().await;
    for (name, body) in files {
        Mock::given(path(format!(
            "/acme/agenteval-gate/releases/download/{tag}/{name}"
        )))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(body.clone()))
        .mount(server)
        .await;
    }
}

/// The runner's directories for one job: the action checked out under
/// `_actions/acme/agenteval-gate/<ref>` (its Cargo.toml and scripts), the
/// tool cache, the temp directory.
struct Runner {
    dir: tempfile::TempDir,
    server_url: String,
}

impl Runner {
    fn new(server_url: String) -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
            server_url,
        }
    }

    fn tool_cache(&self) -> PathBuf {
        self.dir.path().join("tool-cache")
    }

    /// The action as the runner downloads it for `uses: acme/agenteval-gate@<git_ref>`.
    fn action_at(&self, git_ref: &str) -> PathBuf {
        let action = self
            .dir
            .path()
            .join("work/_actions/acme/agenteval-gate")
            .join(git_ref);
        std::fs::create_dir_all(action.join("scripts")).unwrap();
        std::fs::copy(repo().join("Cargo.toml"), action.join("Cargo.toml")).unwrap();
        std::fs::copy(
            repo().join("scripts/action-install.sh"),
            action.join("scripts/action-install.sh"),
        )
        .unwrap();
        action
    }

    /// Run the `install` step with the action at `action`; `extra` adds or
    /// overrides variables. Returns the output and the step's outputs.
    fn install(&self, action: &Path, extra: &[(&str, &str)]) -> (Output, HashMap<String, String>) {
        let temp = self.dir.path().join("temp");
        std::fs::create_dir_all(&temp).unwrap();
        let github_output = self.dir.path().join("github_output");
        let _ = std::fs::remove_file(&github_output);
        let mut env: Vec<(&str, String)> = vec![
            ("INPUT_VERSION", String::new()),
            ("ACTION_REPOSITORY", String::new()),
            ("ACTION_REF", String::new()),
            ("GITHUB_ACTION_PATH", action.to_str().unwrap().into()),
            ("GITHUB_SERVER_URL", self.server_url.clone()),
            ("RUNNER_OS", "Linux".into()),
            ("RUNNER_ARCH", "X64".into()),
            ("RUNNER_TEMP", temp.to_str().unwrap().into()),
            (
                "RUNNER_TOOL_CACHE",
                self.tool_cache().to_str().unwrap().into(),
            ),
            ("GITHUB_OUTPUT", github_output.to_str().unwrap().into()),
        ];
        for (k, v) in extra {
            env.retain(|(name, _)| name != k);
            env.push((k, (*v).to_owned()));
        }
        let out = run_step("install", self.dir.path(), &env);
        let outs = std::fs::read_to_string(&github_output)
            .map(|_| read_outputs(&github_output).into_iter().collect())
            .unwrap_or_default();
        (out, outs)
    }
}

fn stdout(out: &Output) -> String {
    outputs(out).0
}

#[tokio::test]
async fn a_release_with_a_good_checksum_installs_into_the_tool_cache_once() {
    let server = MockServer::start().await;
    let runner = Runner::new(server.uri());
    let good = release(runner.dir.path(), VERSION);
    let tag = format!("v{VERSION}");
    serve(
        &server,
        &tag,
        &[
            (ASSET, good.tarball.clone()),
            ("SHA256SUMS", good.sums.clone().into_bytes()),
        ],
    )
    .await;

    // `uses: acme/agenteval-gate@v0`: a moving major tag still means the
    // release of the version in the action's Cargo.toml.
    let action = runner.action_at("v0");
    let (out, outs) = runner.install(&action, &[]);
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let cached = runner.tool_cache().join(format!(
        "agenteval-gate/{VERSION}/x86_64-unknown-linux-musl"
    ));
    assert_eq!(outs["source"], "release");
    assert_eq!(outs["version"], tag);
    assert_eq!(
        outs["bin"],
        cached.join("agenteval-gate").to_str().unwrap(),
        "{outs:?}"
    );
    assert!(
        stdout(&out).contains(&format!(
            "installed from {}/acme/agenteval-gate/releases/download/{tag}/{ASSET} (sha256 ",
            server.uri()
        )),
        "{}",
        stdout(&out)
    );
    assert!(
        runner
            .tool_cache()
            .join(format!(
                "agenteval-gate/{VERSION}/x86_64-unknown-linux-musl.complete"
            ))
            .is_file()
    );
    let ran = Command::new(&outs["bin"])
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(stdout(&ran), format!("agenteval-gate {VERSION}\n"));
    let downloads = server.received_requests().await.unwrap().len();
    assert_eq!(downloads, 2, "the tarball and SHA256SUMS");

    // A warm tool cache: no request at all.
    let (out, outs) = runner.install(&action, &[]);
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    assert_eq!(outs["source"], "tool-cache");
    assert_eq!(outs["bin"], cached.join("agenteval-gate").to_str().unwrap());
    assert_eq!(server.received_requests().await.unwrap().len(), downloads);

    // The runner's own `github.action_repository`/`action_ref`, when set,
    // win over the path (a local copy here, so only they can name a release).
    let runner2 = Runner::new(server.uri());
    let local = runner2.dir.path().join("checkout");
    std::fs::create_dir_all(local.join("scripts")).unwrap();
    std::fs::copy(repo().join("Cargo.toml"), local.join("Cargo.toml")).unwrap();
    std::fs::copy(
        repo().join("scripts/action-install.sh"),
        local.join("scripts/action-install.sh"),
    )
    .unwrap();
    let (out, outs) = runner2.install(
        &local,
        &[
            ("ACTION_REPOSITORY", "acme/agenteval-gate"),
            ("ACTION_REF", &tag),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    assert_eq!(outs["source"], "release");
}

#[tokio::test]
async fn a_bad_checksum_or_a_missing_sum_fails_and_installs_nothing() {
    let server = MockServer::start().await;
    let runner = Runner::new(server.uri());
    let good = release(runner.dir.path(), VERSION);
    let tag = format!("v{VERSION}");
    let action = runner.action_at(&tag);

    // The tarball was swapped after the sums were written.
    let other = release(runner.dir.path(), &format!("{VERSION} (tampered)"));
    serve(
        &server,
        &tag,
        &[
            (ASSET, other.tarball.clone()),
            ("SHA256SUMS", good.sums.clone().into_bytes()),
        ],
    )
    .await;
    let (out, outs) = runner.install(&action, &[]);
    assert_eq!(out.status.code(), Some(1), "{:?}", outputs(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with(&format!(
            "::error title=agenteval-gate::checksum mismatch for {}/acme/agenteval-gate/releases/download/{tag}/{ASSET}: SHA256SUMS says ",
            server.uri()
        )),
        "{text}"
    );
    assert!(text.contains("the asset was changed or corrupted, so it is not installed"));
    assert!(!outs.contains_key("bin"), "{outs:?}");
    assert!(
        !runner
            .tool_cache()
            .join(format!("agenteval-gate/{VERSION}"))
            .exists()
    );

    // No sum for the asset: never an unverified binary.
    serve(
        &server,
        &tag,
        &[
            (ASSET, good.tarball.clone()),
            (
                "SHA256SUMS",
                format!("{}  agenteval-gate-other.tar.gz\n", "ab".repeat(32)).into_bytes(),
            ),
        ],
    )
    .await;
    let (out, outs) = runner.install(&action, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains(&format!(
            "cannot verify {ASSET}: release {tag}'s SHA256SUMS has no sum for it"
        )),
        "{}",
        stdout(&out)
    );
    assert!(!outs.contains_key("bin"));

    // No SHA256SUMS at all (404).
    serve(&server, &tag, &[(ASSET, good.tarball.clone())]).await;
    let (out, _) = runner.install(&action, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("SHA256SUMS gave HTTP 404; refusing an unverified binary"));

    // A verified tarball whose binary is another version.
    let wrong = release(runner.dir.path(), "9.9.9");
    serve(
        &server,
        &tag,
        &[
            (ASSET, wrong.tarball.clone()),
            ("SHA256SUMS", wrong.sums.clone().into_bytes()),
        ],
    )
    .await;
    let (out, _) = runner.install(&action, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains(&format!(
            "printed `agenteval-gate 9.9.9` for `--version`, expected `agenteval-gate {VERSION}`"
        )),
        "{}",
        stdout(&out)
    );
}

#[tokio::test]
async fn a_missing_asset_falls_back_to_source_by_default_and_fails_when_pinned() {
    let server = MockServer::start().await;
    let runner = Runner::new(server.uri());
    let tag = format!("v{VERSION}");
    serve(&server, &tag, &[]).await; // no release at all
    let action = runner.action_at(&tag);

    let (out, outs) = runner.install(&action, &[]);
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    assert_eq!(outs["source"], "build", "{outs:?}");
    assert!(!outs.contains_key("bin"));
    assert!(
        stdout(&out).starts_with(&format!(
            "::warning title=agenteval-gate::cannot download {}/acme/agenteval-gate/releases/download/{tag}/{ASSET} (HTTP 404",
        server.uri())),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("; building from source"));

    // `version: vX.Y.Z` asked for that release: its absence is an error.
    let (out, outs) = runner.install(&action, &[("INPUT_VERSION", &tag)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).starts_with("::error title=agenteval-gate::cannot download "),
        "{}",
        stdout(&out)
    );
    assert!(!outs.contains_key("source"));

    // No server listening (the connection is refused): the same fallback.
    let closed = Runner::new("http://127.0.0.1:9".to_owned());
    let (out, outs) = closed.install(&closed.action_at(&tag), &[]);
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    assert_eq!(outs["source"], "build");
    assert!(stdout(&out).contains("(HTTP 000"), "{}", stdout(&out));

    // A platform without a release binary.
    let (out, outs) = runner.install(
        &action,
        &[("RUNNER_OS", "Windows"), ("RUNNER_ARCH", "ARM64")],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(outs["source"], "build");
    assert!(stdout(&out).contains("no release binary for Windows-ARM64; building from source"));
    let (out, _) = runner.install(
        &action,
        &[
            ("RUNNER_OS", "Windows"),
            ("RUNNER_ARCH", "ARM64"),
            ("INPUT_VERSION", &tag),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
}

#[tokio::test]
async fn refs_that_are_not_releases_build_from_source() {
    let server = MockServer::start().await;
    let runner = Runner::new(server.uri());
    let good = release(runner.dir.path(), VERSION);
    let tag = format!("v{VERSION}");
    serve(
        &server,
        &tag,
        &[
            (ASSET, good.tarball.clone()),
            ("SHA256SUMS", good.sums.clone().into_bytes()),
            ("COMMIT", format!("{RELEASE_COMMIT}\n").into_bytes()),
        ],
    )
    .await;

    // The release commit's SHA: the release, after checking COMMIT.
    let (out, outs) = runner.install(&runner.action_at(RELEASE_COMMIT), &[]);
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    assert_eq!(outs["source"], "release", "{}", stdout(&out));
    // Warm: the tool cache remembers the release's commit; no request.
    let requests = server.received_requests().await.unwrap().len();
    let (out, outs) = runner.install(&runner.action_at(RELEASE_COMMIT), &[]);
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    assert_eq!(outs["source"], "tool-cache");
    assert_eq!(server.received_requests().await.unwrap().len(), requests);

    // Another commit: its code may differ from the release, even with the
    // release in the tool cache.
    let other = "fedcba9876543210fedcba9876543210fedcba98";
    let (out, outs) = runner.install(&runner.action_at(other), &[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(outs["source"], "build");
    assert!(
        stdout(&out).contains(&format!(
            "`acme/agenteval-gate@{other}` is not the commit of release {tag} ({RELEASE_COMMIT}): building from source"
        )),
        "{}",
        stdout(&out)
    );

    // A branch.
    let before = server.received_requests().await.unwrap().len();
    let (out, outs) = runner.install(&runner.action_at("main"), &[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(outs["source"], "build");
    assert!(
        stdout(&out)
            .contains("`acme/agenteval-gate@main` is not a release tag or a release commit")
    );

    // `uses: ./`: a local action is not a release.
    let local = runner.dir.path().join("workspace/repo");
    std::fs::create_dir_all(local.join("scripts")).unwrap();
    std::fs::copy(
        repo().join("scripts/action-install.sh"),
        local.join("scripts/action-install.sh"),
    )
    .unwrap();
    let (out, outs) = runner.install(&local, &[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(outs["source"], "build");
    assert!(stdout(&out).contains("a local action (`uses: ./`) has no release"));
    let (out, _) = runner.install(&local, &[("INPUT_VERSION", &tag)]);
    assert_eq!(out.status.code(), Some(64));
    assert!(stdout(&out).contains("this is a local action"));
    assert_eq!(
        server.received_requests().await.unwrap().len(),
        before,
        "no download for a branch or a local action"
    );

    // `version: source`, and a version that is none.
    let (out, outs) = runner.install(&runner.action_at("v0"), &[("INPUT_VERSION", "source")]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(outs["source"], "build");
    for bad in ["latest", "v1", "../../etc/passwd", "v1.2.3; rm -rf /"] {
        let (out, outs) = runner.install(&runner.action_at("v0"), &[("INPUT_VERSION", bad)]);
        assert_eq!(out.status.code(), Some(64), "{bad}");
        assert!(
            stdout(&out).contains(&format!("input `version` is `{bad}`")),
            "{}",
            stdout(&out)
        );
        assert!(outs.is_empty(), "{bad}: {outs:?}");
    }
}
