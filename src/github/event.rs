//! The webhook payload at `GITHUB_EVENT_PATH`: the pull request number, the
//! base and head repositories (to tell fork PRs apart) and the repository name.
//!
//! The payload is read as untyped JSON: only the few fields we use are
//! checked, and each must have the documented type or the file is rejected
//! with its location. <https://docs.github.com/en/webhooks/webhook-events-and-payloads#pull_request>

use std::path::Path;

use serde_json::Value;

use crate::diagnostic::{FileDiagnostic, named_source};
use crate::github::error::GitHubError;

/// The fields of an event payload that matter to us.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct EventPayload {
    /// `pull_request.number`, else the top-level `number`.
    pub(crate) pr_number: Option<u64>,
    /// `repository.full_name`.
    pub(crate) repository: Option<String>,
    /// `pull_request.base.repo.full_name`.
    pub(crate) base_repository: Option<String>,
    /// `pull_request.head.repo.full_name`.
    pub(crate) head_repository: Option<String>,
    /// `pull_request.head.repo.fork`.
    pub(crate) head_is_fork: Option<bool>,
    /// The payload has a `pull_request.head` whose `repo` is `null`: the
    /// head repository (always a fork) was deleted.
    pub(crate) head_repo_deleted: bool,
}

impl EventPayload {
    /// Whether the PR comes from another repository than `base` (the
    /// repository the workflow runs in). The head's full name decides when it
    /// is known: a PR between two branches of a repository that is itself a
    /// fork has `head.repo.fork = true` yet a write token, so `fork` is only
    /// consulted when the names are missing.
    pub(crate) fn is_fork(&self, base: Option<&str>) -> bool {
        let base = self
            .base_repository
            .as_deref()
            .or(base)
            .or(self.repository.as_deref());
        match (self.head_repository.as_deref(), base) {
            (Some(head), Some(base)) => !head.eq_ignore_ascii_case(base),
            _ => self.head_repo_deleted || self.head_is_fork.unwrap_or(false),
        }
    }
}

/// Read and parse the payload file.
pub(crate) fn read_event(path: &Path) -> Result<EventPayload, GitHubError> {
    let text = crate::fsutil::read_input_text(path).map_err(|e| match e.diagnostic(path) {
        Some(d) => GitHubError::EventInvalid(Box::new(d)),
        None => GitHubError::EventRead {
            path: path.to_path_buf(),
            source: e.into_io(),
        },
    })?;
    parse_event(path, text)
}

/// Parse a payload; `path` is only used in error messages.
pub(crate) fn parse_event(path: &Path, text: String) -> Result<EventPayload, GitHubError> {
    let root: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            let (line, column) = (e.line(), e.column());
            let source = named_source(path, text);
            let d = FileDiagnostic::error(
                path,
                format!("the GitHub event payload is not valid JSON: {e}"),
            )
            .at(&source, line, column)
            .with_help(
                "`GITHUB_EVENT_PATH` must point to the webhook payload GitHub Actions wrote",
            );
            return Err(GitHubError::EventInvalid(Box::new(d)));
        }
    };
    if !root.is_object() {
        return Err(invalid(
            path,
            "the GitHub event payload is not a JSON object",
        ));
    }
    let at = |keys: &[&str]| lookup(&root, keys).map_err(|msg| invalid(path, msg));

    let pr_number = match at(&["pull_request", "number"])? {
        Some(v) => Some(as_u64(v, "pull_request.number").map_err(|m| invalid(path, m))?),
        None => match at(&["number"])? {
            Some(v) => Some(as_u64(v, "number").map_err(|m| invalid(path, m))?),
            None => None,
        },
    };
    let string = |keys: &[&str]| -> Result<Option<String>, GitHubError> {
        at(keys)?
            .map(|v| as_string(v, &keys.join(".")).map_err(|m| invalid(path, m)))
            .transpose()
    };
    let head_is_fork = at(&["pull_request", "head", "repo", "fork"])?
        .map(|v| {
            v.as_bool().ok_or_else(|| {
                invalid(
                    path,
                    wrong_type("pull_request.head.repo.fork", "a boolean", v),
                )
            })
        })
        .transpose()?;
    let head_repo_deleted = root
        .get("pull_request")
        .and_then(|pr| pr.get("head"))
        .and_then(|head| head.get("repo"))
        .is_some_and(Value::is_null);

    Ok(EventPayload {
        pr_number,
        repository: string(&["repository", "full_name"])?,
        base_repository: string(&["pull_request", "base", "repo", "full_name"])?,
        head_repository: string(&["pull_request", "head", "repo", "full_name"])?,
        head_is_fork,
        head_repo_deleted,
    })
}

fn invalid(path: &Path, message: impl Into<String>) -> GitHubError {
    let d = FileDiagnostic::error(path, message).with_help(
        "the payload does not match GitHub's webhook schema; was `GITHUB_EVENT_PATH` overwritten?",
    );
    GitHubError::EventInvalid(Box::new(d))
}

/// Walk nested objects. A missing key or a `null` anywhere gives `None`; a
/// non-object in the middle of the path is an error.
fn lookup<'v>(root: &'v Value, keys: &[&str]) -> Result<Option<&'v Value>, String> {
    let mut current = root;
    for (i, key) in keys.iter().enumerate() {
        match current {
            Value::Null => return Ok(None),
            Value::Object(map) => match map.get(*key) {
                Some(next) => current = next,
                None => return Ok(None),
            },
            other => return Err(wrong_type(&keys[..i].join("."), "an object", other)),
        }
    }
    Ok(if current.is_null() {
        None
    } else {
        Some(current)
    })
}

fn as_u64(v: &Value, name: &str) -> Result<u64, String> {
    v.as_u64()
        .filter(|n| *n > 0)
        .ok_or_else(|| wrong_type(name, "a positive integer", v))
}

fn as_string(v: &Value, name: &str) -> Result<String, String> {
    v.as_str()
        .map(str::to_owned)
        .ok_or_else(|| wrong_type(name, "a string", v))
}

fn wrong_type(name: &str, expected: &str, found: &Value) -> String {
    let shown = crate::output::truncate_chars(&found.to_string(), 40);
    format!("`{name}` in the GitHub event payload is `{shown}`, expected {expected}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<EventPayload, GitHubError> {
        parse_event(Path::new("event.json"), text.to_owned())
    }

    #[test]
    fn pull_request_fields_are_read() {
        let e = parse(
            r#"{"number": 12, "pull_request": {"number": 12,
                "head": {"repo": {"full_name": "alice/widgets", "fork": true}},
                "base": {"repo": {"full_name": "acme/widgets", "fork": false}}},
                "repository": {"full_name": "acme/widgets"}}"#,
        )
        .unwrap();
        assert_eq!(e.pr_number, Some(12));
        assert_eq!(e.head_repository.as_deref(), Some("alice/widgets"));
        assert_eq!(e.base_repository.as_deref(), Some("acme/widgets"));
        assert!(e.is_fork(None));
    }

    #[test]
    fn fork_rules() {
        // Same repository, even though that repository is itself a fork.
        let same = EventPayload {
            head_repository: Some("Acme/Widgets".into()),
            base_repository: Some("acme/widgets".into()),
            head_is_fork: Some(true),
            ..EventPayload::default()
        };
        assert!(!same.is_fork(None));
        // Names missing: the `fork` flag decides.
        let flag_only = EventPayload {
            head_is_fork: Some(true),
            ..EventPayload::default()
        };
        assert!(flag_only.is_fork(Some("acme/widgets")));
        // The fork was deleted: `head.repo` is null.
        let deleted = EventPayload {
            head_repo_deleted: true,
            ..EventPayload::default()
        };
        assert!(deleted.is_fork(Some("acme/widgets")));
        // Base falls back to the caller's repository.
        let head_only = EventPayload {
            head_repository: Some("bob/widgets".into()),
            ..EventPayload::default()
        };
        assert!(head_only.is_fork(Some("acme/widgets")));
        assert!(!head_only.is_fork(Some("bob/widgets")));
    }

    #[test]
    fn top_level_number_and_push_events() {
        assert_eq!(parse(r#"{"number": 5}"#).unwrap().pr_number, Some(5));
        let push =
            parse(r#"{"ref": "refs/heads/main", "repository": {"full_name": "acme/w"}}"#).unwrap();
        assert_eq!(push.pr_number, None);
        assert_eq!(push.repository.as_deref(), Some("acme/w"));
        assert!(!push.is_fork(None));
        assert_eq!(
            parse(r#"{"pull_request": null}"#).unwrap(),
            EventPayload::default()
        );
    }

    #[test]
    fn malformed_payloads_are_located_errors() {
        let err = parse("{\n  \"number\": 3,\n  oops\n}").unwrap_err();
        let GitHubError::EventInvalid(d) = &err else {
            panic!("{err:?}")
        };
        assert_eq!((d.line, d.column), (3, 3));
        assert!(d.message.contains("not valid JSON"), "{}", d.message);

        let err = parse(r#"{"pull_request": {"number": "12"}}"#).unwrap_err();
        assert!(err.to_string().contains("`pull_request.number`"), "{err}");
        assert!(err.to_string().contains("positive integer"), "{err}");

        let err = parse(r#"{"pull_request": "nope"}"#).unwrap_err();
        assert!(
            err.to_string()
                .contains("`pull_request` in the GitHub event payload is `\"nope\"`"),
            "{err}"
        );

        let err = parse(r#"{"pull_request": {"head": {"repo": {"fork": "yes"}}}}"#).unwrap_err();
        assert!(
            err.to_string().contains("`pull_request.head.repo.fork`"),
            "{err}"
        );

        assert!(
            parse("[1, 2]")
                .unwrap_err()
                .to_string()
                .contains("not a JSON object")
        );
    }
}
