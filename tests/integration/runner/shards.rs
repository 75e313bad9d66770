//! `run --shard i/n` + `merge` equals one process, byte for byte; shard
//! reports that do not belong together are rejected (exit 65).

use std::path::{Path, PathBuf};

use crate::common::{bin, outputs, repo};

use super::assert_code;

/// `run --suite SUITE --deterministic --out OUT` plus `extra`, from the repository root.
fn run(suite: &str, out: &Path, extra: &[&str]) {
    let o = bin()
        .current_dir(repo())
        .args([
            "run",
            "--suite",
            suite,
            "--deterministic",
            "--quiet",
            "--allow-empty",
        ])
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    assert_code(&o, 0);
}

fn merge(reports: &[PathBuf], out: &Path) -> std::process::Output {
    bin()
        .current_dir(repo())
        .arg("merge")
        .args(reports)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

/// Run all `n` shards; the reports that were written (a shard with no case writes none).
fn shards(suite: &str, dir: &Path, n: u32, extra: &[&str]) -> Vec<PathBuf> {
    (1..=n)
        .filter_map(|i| {
            let out = dir.join(format!("{suite}-shard-{i}.json"));
            run(
                suite,
                &out,
                &[&["--shard", &format!("{i}/{n}")], extra].concat(),
            );
            out.is_file().then_some(out)
        })
        .collect()
}

#[test]
fn merged_shards_equal_one_process_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    // support-bot in run mode (the example agent runs per case), also with 3 trials of each
    // case (issue 20: a case's trials stay together and in order); code-review in replay mode.
    for (suite, extra, trials) in [
        ("support-bot", &[][..], 1),
        ("support-bot", &["--trials", "3"][..], 3),
        ("code-review", &["--jobs", "2"][..], 1),
    ] {
        let tag = format!("{suite}-{trials}");
        let single = dir.path().join(format!("{tag}-single.json"));
        run(suite, &single, extra);
        let shard_dir = dir.path().join(&tag);
        std::fs::create_dir_all(&shard_dir).unwrap();
        let mut parts = shards(suite, &shard_dir, 3, extra);
        assert_eq!(parts.len(), 3, "every shard of {suite} holds cases");
        let mut seen = Vec::new();
        for p in &parts {
            let r: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
            assert_eq!(r["shard"]["count"], 3);
            let mut ids: Vec<String> = r["cases"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["id"].as_str().unwrap().to_owned())
                .collect();
            let entries = ids.len();
            ids.dedup();
            assert_eq!(
                entries,
                ids.len() * trials,
                "{trials} trials of each case in a row"
            );
            assert!(!ids.is_empty() && ids.len() < 20, "{ids:?}");
            seen.extend(ids);
        }
        let total = seen.len();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), total, "a case ran in two shards");
        let counted = if trials == 1 {
            format!("{total} cases")
        } else {
            format!("{total} cases × {trials} trials")
        };

        // Out of order on purpose: merge restores suite order.
        parts.reverse();
        let merged = dir.path().join(format!("{tag}-merged.json"));
        let out = merge(&parts, &merged);
        let (_, stderr) = assert_code(&out, 0);
        assert!(
            stderr.contains(&format!("merged 3 shard reports of `{suite}` ({counted})")),
            "{stderr}"
        );
        let (a, b) = (
            std::fs::read_to_string(&single).unwrap(),
            std::fs::read_to_string(&merged).unwrap(),
        );
        assert!(
            a == b,
            "merged report of {suite} differs from the single run"
        );
        let report: serde_json::Value = serde_json::from_str(&b).unwrap();
        assert_eq!(report["cases"].as_array().unwrap().len(), total * trials);
        assert!(report.get("shard").is_none());
    }
}

#[test]
fn shard_reports_that_do_not_belong_together_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let replay = [
        "--traces",
        "suites/support-bot/traces",
        "--evidence",
        "suites/support-bot/evidence",
    ];
    let parts = shards("support-bot", dir.path(), 3, &replay);
    assert_eq!(parts.len(), 3);
    let seeded = dir.path().join("seeded.json");
    run(
        "support-bot",
        &seeded,
        &[&replay[..], &["--shard", "2/3", "--seed", "7"]].concat(),
    );
    let single = dir.path().join("single.json");
    run("support-bot", &single, &replay);
    let other = dir.path().join("other.json");
    run("code-review", &other, &["--shard", "1/3"]);
    let merged = dir.path().join("merged.json");

    let cases: [(&str, Vec<PathBuf>, String); 5] = [
        (
            "mixed seeds",
            vec![parts[0].clone(), seeded.clone(), parts[2].clone()],
            format!(
                "`{}` and `{}` differ in `seed` (`7` vs `42`)",
                seeded.display(),
                parts[0].display()
            ),
        ),
        (
            "missing shard",
            parts[..2].to_vec(),
            "shard 3/3 of `support-bot` is missing: the suite puts".to_owned(),
        ),
        (
            "not a shard",
            vec![single.clone()],
            format!("`{}` is not a shard report", single.display()),
        ),
        (
            "mixed suites",
            vec![parts[0].clone(), other.clone()],
            format!(
                "`{}` is a report of suite `code-review`, not `support-bot`",
                other.display()
            ),
        ),
        (
            "duplicate shard",
            vec![
                parts[0].clone(),
                parts[1].clone(),
                parts[1].clone(),
                parts[2].clone(),
            ],
            "shard 2/3 is given twice".to_owned(),
        ),
    ];
    for (what, inputs, expected) in cases {
        let out = merge(&inputs, &merged);
        let (stdout, stderr) = outputs(&out);
        assert_eq!(out.status.code(), Some(65), "{what}: {stdout}\n{stderr}");
        assert!(stderr.contains(&expected), "{what}: {stderr}");
        assert!(!merged.exists(), "{what}: a report was written");
    }
}
