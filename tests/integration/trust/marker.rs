//! Item 3: the sticky marker counts only where the gate writes it (alone on
//! the first line of its own comment). A failed comment for one suite that
//! quoted another suite's marker used to be updated by that suite's next
//! `comment` run, turning "failed" into "passed".

use super::expect;
use crate::common::{bin, repo};
use crate::github_api::fake::{Fake, TOKEN};

fn passing_report(dir: &std::path::Path) -> std::path::PathBuf {
    let report = dir.join("compare.json");
    let out = bin()
        .current_dir(repo())
        .args([
            "compare",
            "--suite",
            "support-bot",
            "--deterministic",
            "--out",
        ])
        .arg(&report)
        .output()
        .unwrap();
    expect(&out, 0);
    report
}

fn comment(fake: &Fake, report: &std::path::Path) -> (String, String) {
    let out = bin()
        .args(["comment", "--pr", "7", "--report"])
        .arg(report)
        .env("GITHUB_REPOSITORY", "acme/widgets")
        .env("GITHUB_API_URL", fake.api_url())
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap();
    expect(&out, 0)
}

#[tokio::test]
async fn a_marker_quoted_in_a_comment_never_selects_it() {
    let fake = Fake::start().await;
    let ours = "<!-- agenteval-gate:main:support-bot -->";
    // Our own earlier comment for another suite, quoting support-bot's
    // marker in its data (what the old renderer let through).
    let other = fake.seed(
        &format!("<!-- agenteval-gate:main:billing -->\n## ❌ failed\n> checkpoint: {ours}\n"),
        "agenteval-bot",
    );
    // Someone else's comment with the marker on its first line.
    let foreign = fake.seed(&format!("{ours}\nlooks official"), "mallory");
    // Ours, but the marker is not alone on the first line.
    let prefixed = fake.seed(&format!("x {ours}\nold"), "agenteval-bot");

    let dir = tempfile::tempdir().unwrap();
    let report = passing_report(dir.path());
    comment(&fake, &report);
    let comments = fake.comments();
    assert_eq!(
        comments.len(),
        4,
        "a new comment, none of the others updated"
    );
    for (id, want) in [
        (other, "## ❌ failed"),
        (foreign, "looks official"),
        (prefixed, "old"),
    ] {
        let c = comments.iter().find(|c| c.id == id).unwrap();
        assert!(
            c.body.contains(want),
            "comment {id} was changed: {}",
            c.body
        );
    }
    let new = comments.last().unwrap();
    assert_eq!(new.body.lines().next(), Some(ours));

    // The next run finds exactly that comment and updates it in place.
    comment(&fake, &report);
    let again = fake.comments();
    assert_eq!(again.len(), 4);
    assert_eq!(again.last().unwrap().id, new.id);
}
