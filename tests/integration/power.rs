//! The policy violations that `scripts/tau-bench-power.py` injects to measure
//! detection power (docs/detection-power.md): on the 19 bundled real
//! episodes, each injection turns its target checkpoint from PASS to FAIL in
//! every case it touched, through the real binary, changes no case it did
//! not touch, and changes no other checkpoint beyond the ones that encode the
//! same behaviour.

#![expect(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::common::{fixture, repo, run_report};

/// case id → checkpoint id → result, from `run` on `suites_dir/suite`.
fn results(suites_dir: &Path, suite: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let report = run_report(suites_dir, suite);
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let cps = c["checkpoints"]
                .as_array()
                .unwrap()
                .iter()
                .map(|cp| {
                    (
                        cp["id"].as_str().unwrap().to_owned(),
                        cp["result"].as_str().unwrap().to_owned(),
                    )
                })
                .collect();
            (c["id"].as_str().unwrap().to_owned(), cps)
        })
        .collect()
}

/// Inject `kind` into every applicable bundled episode; returns the suites
/// directory (holding `airline-trial`) and the script's list of what it did.
fn inject(kind: &str, dir: &Path) -> Value {
    let out = std::process::Command::new("python3")
        .arg(repo().join("scripts/tau-bench-power.py"))
        .arg("--source")
        .arg(fixture("traces/tau-bench/gpt-4o-airline.subset.json"))
        .args(["--inject-all", kind, "--trial", "0", "--out"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(dir.join("injected.json")).unwrap()).unwrap()
}

/// (kind, target checkpoint, injected cases, other checkpoints allowed to
/// change with it). The cases are pinned so that an injection that silently
/// stops applying fails the test.
const KINDS: [(&str, &str, &[&str], &[&str]); 5] = [
    // A2-24 (the agent asks, then the user says yes) loses its pair too.
    (
        "no-confirmation",
        "A2-08",
        &[
            "task-0", "task-11", "task-2", "task-26", "task-31", "task-4", "task-5", "task-6",
        ],
        &["A2-24"],
    ),
    // Reading no reservation before a change also breaks A2-05 ("some read
    // first"), a cancellation's eligibility (A2-15) is then unknown, and a
    // basic-economy re-flight (A2-19, task-13) is no longer seen as one.
    (
        "unread-change",
        "A2-09",
        &[
            "task-13", "task-2", "task-20", "task-26", "task-3", "task-31", "task-33", "task-4",
            "task-5", "task-6", "task-7",
        ],
        &["A2-05", "A2-15", "A2-19"],
    ),
    // Without the lookup a booking's user (A2-14) and a transfer (A2-04) are
    // unidentified too; where the lookup shared its turn with text (task-5),
    // that turn no longer breaks A2-23.
    (
        "no-identification",
        "A2-01",
        &[
            "task-0", "task-11", "task-2", "task-3", "task-31", "task-33", "task-4", "task-5",
            "task-6", "task-7",
        ],
        &["A2-14", "A2-04", "A2-23"],
    ),
    (
        "basic-economy-change",
        "A2-10",
        &["task-13", "task-4", "task-5"],
        &[],
    ),
    (
        "certificate-flight-change",
        "A2-12",
        &["task-26", "task-4", "task-5", "task-6", "task-7"],
        &[],
    ),
];

#[test]
fn each_injected_violation_fails_exactly_its_checkpoint_on_real_episodes() {
    let original = results(&repo().join("suites"), "airline-tau");
    assert_eq!(original.len(), 19);
    for (kind, target, cases, also) in KINDS {
        let dir = tempfile::tempdir().unwrap();
        let listed = inject(kind, dir.path());
        assert_eq!(listed["checkpoint"], target, "{kind}");
        let mut injected: Vec<&str> = listed["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["case"].as_str().unwrap())
            .collect();
        injected.sort_unstable();
        let mut want = cases.to_vec();
        want.sort_unstable();
        assert_eq!(injected, want, "{kind}");

        let got = results(dir.path(), "airline-trial");
        assert_eq!(got.len(), 19, "{kind}");
        for (case, before) in &original {
            let after = &got[case];
            if !injected.contains(&case.as_str()) {
                assert_eq!(after, before, "{kind}: untouched {case} changed");
                continue;
            }
            assert_eq!(before[target], "PASS", "{kind}: {case} before");
            assert_eq!(after[target], "FAIL", "{kind}: {case} after");
            for (id, was) in before {
                if id != target && !also.contains(&id.as_str()) {
                    assert_eq!(&after[id], was, "{kind}: {case} {id} changed too");
                }
            }
        }
    }
}

/// The confirmation exchange is gone from the trace (the user's yes and the
/// agent's question), the rest of the conversation is kept in order.
#[test]
fn no_confirmation_removes_the_users_yes_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let listed = inject("no-confirmation", dir.path());
    let task31 = listed["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["case"] == "task-31")
        .unwrap();
    let yes = task31["removed_user_message"].as_str().unwrap();
    let read =
        |p: &Path| -> Value { serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap() };
    let before = read(&repo().join("suites/airline-tau/traces/task-31.json"));
    let after = read(&dir.path().join("airline-trial/traces/task-31.json"));
    let msgs = |v: &Value| v["traj"].as_array().unwrap().clone();
    let (b, a) = (msgs(&before), msgs(&after));
    assert!(b.iter().any(|m| m["role"] == "user" && m["content"] == yes));
    assert!(!a.iter().any(|m| m["role"] == "user" && m["content"] == yes));
    // Two messages cut (the question and the yes); every other one kept, in order.
    assert_eq!(a.len() + 2, b.len());
    let mut rest = b.iter().filter(|m| a.contains(m));
    assert!(a.iter().all(|m| rest.next() == Some(m)));
    // The cancellation itself is still there.
    assert!(
        a.iter()
            .any(|m| m["tool_calls"][0]["function"]["name"] == "cancel_reservation")
    );
}
