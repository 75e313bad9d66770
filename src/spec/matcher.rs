//! Compiled tier-2 matchers: tool-name globs (via `globset`), regexes and
//! captures, built once by [`crate::spec::validate`].

use std::sync::Arc;

use regex::Regex;
use serde_json::Value;

use crate::spec::expr::Expr;
use crate::spec::model::{CountRange, EventKind, EventStatus};

/// A compiled tier-2 event matcher; all set fields must match.
#[derive(Debug, Clone, Default)]
pub struct Matcher {
    /// Any of these patterns matches the tool name; empty = no tool constraint.
    pub tools: Vec<ToolGlob>,
    pub args_contains: Option<Value>,
    pub args_match: Option<Regex>,
    pub result_contains: Option<Value>,
    pub result_match: Option<Regex>,
    pub content_contains: Option<String>,
    pub content_matches: Option<Regex>,
    pub agent: Option<String>,
    pub kind: Option<EventKind>,
    pub status: Option<EventStatus>,
    pub is_final: Option<bool>,
    /// In name order.
    pub captures: Vec<Capture>,
    /// `where:`, evaluated last.
    pub where_: Option<Arc<Expr>>,
    pub any_of: Vec<Matcher>,
    pub all_of: Vec<Matcher>,
    pub not: Option<Box<Matcher>>,
    pub turn_tool_calls: Option<CountRange>,
    pub turn_replies: Option<CountRange>,
}

/// The variables a matcher's `where` may read.
pub(crate) const EVENT_VARS: &[&str] = &[
    "args",
    "result",
    "content",
    "agent",
    "kind",
    "status",
    "tool",
    "turn",
    "turn_tool_calls",
    "turn_replies",
    "captures",
    "evidence",
    "metadata",
];

/// The variables an `applies_to.where` may read.
pub(crate) const CASE_VARS: &[&str] = &["evidence", "metadata", "tags", "case", "expected_tools"];

/// `capture: {name: pointer}`: the value at `pointer` in the event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    pub name: String,
    pub source: CaptureSource,
    /// JSON Pointer inside the source (`""` = the whole value).
    pub pointer: String,
    /// Its reference tokens, unescaped (`~1` → `/`, `~0` → `~`), so that a
    /// search does not parse the pointer at every event.
    tokens: Vec<String>,
}

/// The part of an event a capture reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureSource {
    Args,
    Result,
    Content,
}

impl Capture {
    /// Parse `/args/…`, `/result/…` or `/content`.
    pub fn parse(name: &str, pointer: &str) -> Result<Self, String> {
        let (source, rest) = if let Some(rest) = strip_root(pointer, "/args") {
            (CaptureSource::Args, rest)
        } else if let Some(rest) = strip_root(pointer, "/result") {
            (CaptureSource::Result, rest)
        } else if pointer == "/content" {
            (CaptureSource::Content, "")
        } else {
            return Err(format!(
                "capture `{name}` reads `{pointer}`, which is not under `/args`, `/result` or `/content`"
            ));
        };
        Ok(Self {
            name: name.to_owned(),
            source,
            pointer: rest.to_owned(),
            tokens: rest
                .split('/')
                .skip(1)
                .map(|t| t.replace("~1", "/").replace("~0", "~"))
                .collect(),
        })
    }

    /// The value at the pointer in `v` (`serde_json::Value::pointer` with
    /// the tokens parsed once).
    pub fn lookup<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        self.tokens.iter().try_fold(v, |at, token| match at {
            Value::Object(o) => o.get(token.as_str()),
            Value::Array(a) => array_index(token).and_then(|i| a.get(i)),
            _ => None,
        })
    }

    /// The pointer as written.
    pub fn display_pointer(&self) -> String {
        let root = match self.source {
            CaptureSource::Args => "/args",
            CaptureSource::Result => "/result",
            CaptureSource::Content => "/content",
        };
        format!("{root}{}", self.pointer)
    }
}

/// A pointer token as an array index, as JSON Pointer reads it (no sign,
/// no leading zero).
fn array_index(token: &str) -> Option<usize> {
    if token.starts_with('+') || (token.starts_with('0') && token.len() != 1) {
        return None;
    }
    token.parse().ok()
}

/// `/args` or `/args/…` → the rest.
fn strip_root<'a>(pointer: &'a str, root: &str) -> Option<&'a str> {
    let rest = pointer.strip_prefix(root)?;
    (rest.is_empty() || rest.starts_with('/')).then_some(rest)
}

impl Matcher {
    /// Whether this matcher can only match tool events.
    pub fn tool_only(&self) -> bool {
        !self.tools.is_empty()
            || self.kind == Some(EventKind::Tool)
            || (!self.all_of.is_empty() && self.all_of.iter().any(Self::tool_only))
            || (!self.any_of.is_empty() && self.any_of.iter().all(Self::tool_only))
    }

    /// Whether this matcher or a sub-matcher has a `where`.
    pub fn has_where(&self) -> bool {
        self.where_.is_some()
            || self.any_of.iter().any(Self::has_where)
            || self.all_of.iter().any(Self::has_where)
            || self.not.as_deref().is_some_and(Self::has_where)
    }

    /// What the matcher looks for, in words for a verdict's notes (no
    /// article): ``call to `request_approval` ``, ``successful call to `a` or
    /// `b` ``, `tool call`, or ``event matching the checkpoint's `{role}` ``
    /// when its conditions are more than tool names and a status.
    pub fn phrase(&self, role: &str) -> String {
        let extra = self.args_contains.is_some()
            || self.args_match.is_some()
            || self.result_contains.is_some()
            || self.result_match.is_some()
            || self.content_contains.is_some()
            || self.content_matches.is_some()
            || self.agent.is_some()
            || self.is_final.is_some()
            || self.kind.is_some_and(|k| k != EventKind::Tool);
        if extra || (self.tools.is_empty() && self.kind.is_none()) {
            return format!("event matching the checkpoint's `{role}`");
        }
        let status = match self.status {
            Some(EventStatus::Ok) => "successful ",
            Some(EventStatus::Error) => "failed ",
            None => "",
        };
        if self.tools.is_empty() {
            return format!("{status}tool call");
        }
        let names: Vec<String> = self
            .tools
            .iter()
            .map(|t| format!("`{}`", shown(t.as_str())))
            .collect();
        format!("{status}call to {}", names.join(" or "))
    }
}

/// Longest tool glob a suite may hold, in characters. Tool names are short
/// (providers cap them at 64); a glob of 400,000 characters used to panic
/// inside `globset` (issue 25).
pub(crate) const MAX_GLOB_CHARS: usize = 1_000;

/// Longest regex a suite or case may hold, in characters.
pub(crate) const MAX_REGEX_CHARS: usize = 10_000;

/// Why a glob or regex from a suite does not compile. Display is a fragment
/// that follows "is not a valid glob: " / "is not a valid regex: ".
#[derive(Debug, thiserror::Error)]
pub enum PatternError {
    #[error("it is {len} characters long, over the limit of {max}")]
    TooLong { len: usize, max: usize },
    #[error("{0}")]
    Glob(#[from] globset::Error),
    #[error("{0}")]
    Regex(#[from] regex::Error),
}

impl PatternError {
    /// The fix, for the diagnostic's help.
    pub(crate) fn hint(&self, glob_hint: &str, regex_hint: &str) -> String {
        match self {
            Self::TooLong { max, .. } => format!(
                "shorten the pattern to at most {max} characters: {}",
                if *max == MAX_GLOB_CHARS {
                    "`*` and `{a,b}` name families of tools"
                } else {
                    "match a distinctive part of the text rather than all of it"
                }
            ),
            Self::Glob(_) => glob_hint.to_owned(),
            Self::Regex(_) => regex_hint.to_owned(),
        }
    }
}

/// A pattern quoted in a message: at most 60 characters.
pub(crate) fn shown(pattern: &str) -> String {
    crate::output::truncate_chars(pattern, 60)
}

fn check_len(pattern: &str, max: usize) -> Result<(), PatternError> {
    let len = pattern.chars().count();
    if len > max {
        return Err(PatternError::TooLong { len, max });
    }
    Ok(())
}

/// Compile a regex from a suite or case: at most [`MAX_REGEX_CHARS`]
/// characters, and the `regex` crate's size limits (an error, never a panic).
pub(crate) fn compile_regex(pattern: &str) -> Result<Regex, PatternError> {
    check_len(pattern, MAX_REGEX_CHARS)?;
    Ok(Regex::new(pattern)?)
}

/// A glob over tool names: `*` any run, `?` one character, `[abc]`,
/// `{a,b}` alternatives (`globset` syntax; `/` is an ordinary character).
#[derive(Debug, Clone)]
pub struct ToolGlob {
    pattern: String,
    matcher: regex::bytes::Regex,
    literal: bool,
}

impl ToolGlob {
    /// At most [`MAX_GLOB_CHARS`] characters. The glob's regex is compiled
    /// here rather than by `globset`'s `compile_matcher`, which panics when
    /// the regex is too big.
    pub fn new(pattern: &str) -> Result<Self, PatternError> {
        check_len(pattern, MAX_GLOB_CHARS)?;
        let glob = globset::GlobBuilder::new(pattern)
            .literal_separator(false)
            .backslash_escape(true)
            .build()?;
        let matcher = regex::bytes::RegexBuilder::new(glob.regex())
            .dot_matches_new_line(true)
            .build()?;
        Ok(Self {
            pattern: pattern.to_owned(),
            matcher,
            literal: !pattern.contains(['*', '?', '[', '{', '\\']),
        })
    }

    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// No wildcard: the pattern names one tool.
    pub fn is_literal(&self) -> bool {
        self.literal
    }

    pub fn matches(&self, name: &str) -> bool {
        if self.literal {
            self.pattern == name
        } else {
            self.matcher.is_match(name.as_bytes())
        }
    }
}

impl PartialEq for ToolGlob {
    fn eq(&self, other: &Self) -> bool {
        self.pattern == other.pattern
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(p: &str) -> ToolGlob {
        ToolGlob::new(p).unwrap()
    }

    #[test]
    fn globs_match_like_a_shell() {
        assert!(g("lookup_*").matches("lookup_account"));
        assert!(g("*_refund").matches("issue_refund"));
        assert!(g("a?c").matches("abc"));
        assert!(!g("a?c").matches("ac"));
        assert!(g("*").matches(""));
        assert!(g("a*b*c").matches("axxbyyc"));
        assert!(!g("a*b*c").matches("axxbyy"));
        assert!(g("update_{flights,baggages}").matches("update_baggages"));
        assert!(!g("update_{flights,baggages}").matches("update_passengers"));
        assert!(
            g("ns/*").matches("ns/a/b"),
            "`/` is not special in tool names"
        );
        assert!(g("exact").is_literal());
        assert!(!g("ex*").is_literal());
        assert!(!g("exact").matches("exactly"));
        assert!(ToolGlob::new("update_{a,b").is_err());
    }

    /// Issue 25: 400,000 `a`s (or 100,000 emoji) panicked in `globset`.
    #[test]
    fn long_patterns_are_errors_not_panics() {
        for p in ["a".repeat(400_000), "😀".repeat(100_000)] {
            let err = ToolGlob::new(&p).unwrap_err();
            assert!(
                matches!(
                    err,
                    PatternError::TooLong {
                        max: MAX_GLOB_CHARS,
                        ..
                    }
                ),
                "{err}"
            );
            assert!(err.to_string().contains("over the limit of 1000"), "{err}");
            assert!(matches!(
                compile_regex(&p),
                Err(PatternError::TooLong { .. })
            ));
        }
        // At the limit: compiles (or fails) without a panic.
        let glob = "a".repeat(MAX_GLOB_CHARS);
        assert!(ToolGlob::new(&glob).unwrap().matches(&glob));
        let nested = format!("{}x{}", "{a,".repeat(150), "}".repeat(150));
        let _ = ToolGlob::new(&nested);
        let wide = "[a-z]{0,1000}".repeat(700);
        assert!(matches!(compile_regex(&wide), Err(PatternError::Regex(_))));
        assert_eq!(shown(&"b".repeat(100)).chars().count(), 60);
    }

    #[test]
    fn a_capture_finds_what_serde_json_pointer_finds() {
        let v = serde_json::json!({
            "a": {"b": [10, {"c/d": 1, "e~f": 2, "": 3}], "0": "zero"},
            "list": ["x", "y"],
            "n": null
        });
        for rest in [
            "",
            "/a",
            "/a/b",
            "/a/b/0",
            "/a/b/1/c~1d",
            "/a/b/1/e~0f",
            "/a/b/1/",
            "/a/b/01",
            "/a/b/+1",
            "/a/b/2",
            "/a/b/-1",
            "/a/0",
            "/list/1",
            "/list/x",
            "/n",
            "/n/x",
            "/missing",
            "/a/b/0/x",
            "/a/b/1/c~01d",
        ] {
            let c = Capture::parse("x", &format!("/args{rest}")).unwrap();
            assert_eq!(c.lookup(&v), v.pointer(rest), "pointer {rest:?}");
        }
    }

    #[test]
    fn captures_parse_their_root() {
        let c = Capture::parse("rid", "/args/reservation_id").unwrap();
        assert_eq!(
            (c.source, c.pointer.as_str()),
            (CaptureSource::Args, "/reservation_id")
        );
        assert_eq!(c.display_pointer(), "/args/reservation_id");
        assert_eq!(
            Capture::parse("r", "/result").unwrap().source,
            CaptureSource::Result
        );
        assert_eq!(
            Capture::parse("t", "/content").unwrap().source,
            CaptureSource::Content
        );
        assert!(Capture::parse("x", "/arguments/id").is_err());
        assert!(Capture::parse("x", "/content/0").is_err());
        assert!(Capture::parse("x", "args/id").is_err());
    }
}
