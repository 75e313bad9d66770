//! The sticky PR comment: one comment per marker, found by its hidden marker
//! AND our own login, updated in place on every run; and the 65,536-character
//! cap GitHub puts on comment bodies.
//!
//! The marker counts only where the gate writes it: alone on the body's
//! first line. A marker quoted anywhere else (a checkpoint instruction, a
//! case id: data the renderers escape anyway) never selects a comment.

use crate::github::client::{GitHubClient, IssueComment};
use crate::github::error::GitHubError;

/// GitHub rejects comment bodies longer than this many characters (one definition, with the
/// renderer that keeps the comment under it).
pub use crate::report::render::compare_markdown::MAX_COMMENT_CHARS;

/// Starts every marker; [`find_marker`] looks for it.
pub const MARKER_PREFIX: &str = "<!-- agenteval-gate:";
const MARKER_SUFFIX: &str = " -->";
const MAX_KEY_CHARS: usize = 100;

/// Appended to a body cut at [`MAX_COMMENT_CHARS`].
pub const TRUNCATION_NOTICE: &str = "\n\n> [!WARNING]\n> This comment was cut to fit GitHub's 65,536-character \
     limit. The full report is in the job summary and the run's artifacts.\n";

/// The hidden marker for `key`, e.g. `<!-- agenteval-gate:main -->`.
/// Characters that could end the HTML comment or break the line are
/// replaced with `_`, and the key is cut at 100 characters.
pub fn marker(key: &str) -> String {
    let safe: String = key
        .chars()
        .take(MAX_KEY_CHARS)
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | ':' | '/' | '@' | '+' | '=') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{MARKER_PREFIX}{safe}{MARKER_SUFFIX}")
}

/// The agenteval-gate marker of `body`: its first line, when that line is
/// a marker and nothing else.
pub fn find_marker(body: &str) -> Option<&str> {
    let first = first_line(body);
    let key = first
        .strip_prefix(MARKER_PREFIX)?
        .strip_suffix(MARKER_SUFFIX)?;
    (marker(key) == first).then_some(first)
}

/// The first line of `body` without its line break (`\n` or `\r\n`).
fn first_line(body: &str) -> &str {
    let line = body.split('\n').next().unwrap_or_default();
    line.strip_suffix('\r').unwrap_or(line)
}

/// Whether `body` carries `marker` where the gate writes it (its first line).
fn has_marker(body: &str, marker: &str) -> bool {
    first_line(body) == marker
}

/// What [`upsert_sticky_comment`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentAction {
    Created,
    Updated,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentOutcome {
    pub action: CommentAction,
    pub comment_id: u64,
    pub html_url: Option<String>,
    /// The body was cut to [`MAX_COMMENT_CHARS`].
    pub truncated: bool,
    /// The login the comment is written under.
    pub login: String,
}

/// Create or update the sticky comment on pull request `pr`.
///
/// `marker` is the full marker (from [`marker`]); it is the body's first
/// line (prepended unless the body already starts with it), so the next run
/// finds the comment. The comment to update is the oldest one that carries
/// the marker on its first line and was written by our own login; another user's comment is never edited, even
/// when it carries the marker. A create that fails with a 5xx or a lost
/// connection is retried only after listing again, so a comment GitHub
/// created despite the error is updated rather than duplicated.
pub async fn upsert_sticky_comment(
    client: &GitHubClient,
    pr: u64,
    marker: &str,
    body: &str,
) -> Result<CommentOutcome, GitHubError> {
    let with_marker = if has_marker(body, marker) {
        body.to_owned()
    } else {
        format!("{marker}\n{body}")
    };
    let (body, truncated) = cap_body(&with_marker, marker);
    let login = client.authenticated_login().await?;
    let policy = client.retry_policy();
    let mut attempt = 1;
    loop {
        let comments = client.list_issue_comments(pr).await?;
        let result = match find_own(&comments, marker, &login) {
            Some(existing) => match client.update_comment(existing.id, &body).await {
                Ok(c) => Ok((CommentAction::Updated, c)),
                // Deleted between listing and updating: post a new one.
                Err(GitHubError::NotFound { .. }) => client
                    .create_comment(pr, &body)
                    .await
                    .map(|c| (CommentAction::Created, c)),
                Err(e) => Err(e),
            },
            None => client
                .create_comment(pr, &body)
                .await
                .map(|c| (CommentAction::Created, c)),
        };
        match result {
            Ok((action, c)) => {
                return Ok(CommentOutcome {
                    action,
                    comment_id: c.id,
                    html_url: c.html_url,
                    truncated,
                    login,
                });
            }
            Err(e) if e.is_transient() && attempt < policy.attempts() => {
                policy.sleeper.sleep(policy.backoff(attempt)).await;
                attempt += 1;
            }
            Err(e) => return Err(e),
        }
    }
}

/// The oldest comment carrying `marker` whose author is `login` (GitHub
/// logins are case-insensitive).
fn find_own<'c>(
    comments: &'c [IssueComment],
    marker: &str,
    login: &str,
) -> Option<&'c IssueComment> {
    comments.iter().find(|c| {
        has_marker(&c.body, marker)
            && c.author
                .as_deref()
                .is_some_and(|a| a.eq_ignore_ascii_case(login))
    })
}

/// `body` cut to at most [`MAX_COMMENT_CHARS`] characters, and whether it
/// was cut. A cut body ends at a line break when one is near, closes an
/// open code fence and open `<details>` blocks, carries
/// [`TRUNCATION_NOTICE`], and keeps `marker` (re-appended if it was cut off).
pub fn cap_body(body: &str, marker: &str) -> (String, bool) {
    let total = body.chars().count();
    if total <= MAX_COMMENT_CHARS {
        return (body.to_owned(), false);
    }
    let reserve = TRUNCATION_NOTICE.chars().count() + marker.chars().count() + 1;
    let mut keep = MAX_COMMENT_CHARS.saturating_sub(reserve);
    loop {
        let head = head_at_line(body, keep);
        let mut out = head.to_owned();
        close_open_blocks(&mut out);
        out.push_str(TRUNCATION_NOTICE);
        if !head.contains(marker) {
            out.push('\n');
            out.push_str(marker);
        }
        let len = out.chars().count();
        if len <= MAX_COMMENT_CHARS || keep == 0 {
            return (out, true);
        }
        keep = keep.saturating_sub(len - MAX_COMMENT_CHARS);
    }
}

/// The first `keep` characters of `body`, shortened to the last line break
/// if one lies in the last quarter (so a table row is not cut in half).
fn head_at_line(body: &str, keep: usize) -> &str {
    let end = body.char_indices().nth(keep).map_or(body.len(), |(i, _)| i);
    let head = &body[..end];
    match head.rfind('\n') {
        Some(nl) if nl >= end - end / 4 => &head[..nl],
        _ => head,
    }
}

/// Close a fenced code block and `<details>` elements left open by a cut.
fn close_open_blocks(out: &mut String) {
    let fences = out
        .lines()
        .filter(|l| l.trim_start().starts_with("```"))
        .count();
    if fences % 2 == 1 {
        out.push_str("\n```");
    }
    let open = out
        .matches("<details")
        .count()
        .saturating_sub(out.matches("</details>").count());
    for _ in 0..open {
        out.push_str("\n</details>");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_safe_and_findable() {
        assert_eq!(marker("main"), "<!-- agenteval-gate:main -->");
        assert_eq!(marker("a-->b\nc"), "<!-- agenteval-gate:a--_b_c -->");
        assert_eq!(
            marker(&"k".repeat(500)).len(),
            MARKER_PREFIX.len() + 100 + MARKER_SUFFIX.len()
        );
        let body = format!("{}\r\n# Report\ntext <!-- other -->", marker("suite/x"));
        assert_eq!(find_marker(&body), Some("<!-- agenteval-gate:suite/x -->"));
        assert_eq!(find_marker("<!-- agenteval-gate:\n -->"), None);
        assert_eq!(find_marker("no marker"), None);
        // Only the first line counts: a marker quoted in the body is data.
        let quoted = format!("# Report\n> {}", marker("other"));
        assert_eq!(find_marker(&quoted), None);
        assert_eq!(
            find_marker("<!-- agenteval-gate:a b -->"),
            None,
            "not a marker we write"
        );
    }

    #[test]
    fn short_bodies_are_untouched() {
        let body = format!("{}\nhello", marker("k"));
        assert_eq!(cap_body(&body, &marker("k")), (body.clone(), false));
        let exact = "é".repeat(MAX_COMMENT_CHARS);
        assert_eq!(cap_body(&exact, "m"), (exact.clone(), false));
    }

    #[test]
    fn long_bodies_are_cut_on_a_char_boundary_with_notice_and_marker() {
        let m = marker("main");
        let body = format!("{m}\n{}", "ligne é€😀\n".repeat(10_000));
        assert!(body.chars().count() > MAX_COMMENT_CHARS);
        let (out, cut) = cap_body(&body, &m);
        assert!(cut);
        assert!(
            out.chars().count() <= MAX_COMMENT_CHARS,
            "{}",
            out.chars().count()
        );
        assert!(out.starts_with(&m));
        assert_eq!(out.matches(&m).count(), 1);
        assert!(out.ends_with(TRUNCATION_NOTICE));
        // Cut at a line end: every kept line is whole.
        let kept = out.strip_suffix(TRUNCATION_NOTICE).unwrap();
        assert!(kept.lines().skip(1).all(|l| l == "ligne é€😀"));
    }

    #[test]
    fn marker_at_the_end_is_kept_and_blocks_are_closed() {
        let m = marker("tail");
        let body = format!(
            "<details><summary>x</summary>\n\n```text\n{}\n```\n</details>\n{m}",
            "y".repeat(70_000)
        );
        let (out, cut) = cap_body(&body, &m);
        assert!(cut);
        assert!(out.chars().count() <= MAX_COMMENT_CHARS);
        assert!(out.ends_with(&format!("{TRUNCATION_NOTICE}\n{m}")));
        assert!(
            out.contains("\n```\n</details>"),
            "fence and details closed"
        );
    }

    #[test]
    fn own_comment_requires_marker_and_login() {
        let m = marker("k");
        let c = |id, body: &str, author: Option<&str>| IssueComment {
            id,
            body: body.to_owned(),
            author: author.map(str::to_owned),
            html_url: None,
        };
        let comments = [
            c(1, &m, Some("mallory")),
            c(2, "no marker", Some("github-actions[bot]")),
            c(3, &m, None),
            c(
                4,
                &format!("{} \n{m}", marker("other")),
                Some("github-actions[bot]"),
            ),
            c(5, &format!("x {m}"), Some("GitHub-Actions[bot]")),
            c(6, &format!("{m}\r\nbody"), Some("GitHub-Actions[bot]")),
            c(7, &m, Some("github-actions[bot]")),
        ];
        assert_eq!(
            find_own(&comments, &m, "github-actions[bot]").map(|c| c.id),
            Some(6)
        );
        assert_eq!(
            find_own(&comments, &marker("other"), "github-actions[bot]"),
            None
        );
    }
}
