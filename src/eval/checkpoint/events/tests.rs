use serde_json::json;

use super::super::testing::{log, message, of_kind, on_tool, tool};
use crate::spec::matcher::Matcher;
use crate::spec::model::EventKind;

/// `may_occur` is `false` only for a matcher no event can match: a tool
/// or kind the log does not have, through globs, `all_of` and `any_of`.
#[test]
fn a_matcher_may_occur_unless_its_tool_or_kind_is_absent() {
    let l = log(vec![
        tool("a", "get_user_details", json!({}), json!({})),
        message("m", EventKind::User, "hi"),
    ]);
    let any_of = |subs: Vec<Matcher>| Matcher {
        any_of: subs,
        ..Matcher::default()
    };
    let all_of = |subs: Vec<Matcher>| Matcher {
        all_of: subs,
        ..Matcher::default()
    };
    for (m, want) in [
        (on_tool("get_user_details"), true),
        (on_tool("get_*"), true),
        (on_tool("book_reservation"), false),
        (on_tool("book_*"), false),
        (of_kind(EventKind::User), true),
        (of_kind(EventKind::Assistant), false),
        (
            any_of(vec![on_tool("book_reservation"), of_kind(EventKind::User)]),
            true,
        ),
        (
            any_of(vec![on_tool("book_reservation"), of_kind(EventKind::Llm)]),
            false,
        ),
        (
            all_of(vec![on_tool("get_user_details"), of_kind(EventKind::Tool)]),
            true,
        ),
        (
            all_of(vec![on_tool("get_user_details"), of_kind(EventKind::Llm)]),
            false,
        ),
        (Matcher::default(), true),
    ] {
        assert_eq!(l.may_occur(&m), want, "{m:?}");
        // Never `false` where an event matches.
        if l.first(&m).is_some() {
            assert!(want, "{m:?}");
        }
    }
}

/// An event keeps what matchers derive from it (text, JSON and CEL forms,
/// regex answers) behind one pointer until a matcher asks: most events of
/// a large trace never are, and the log has one event per span and message
/// (issue 25, memory).
#[test]
fn an_event_keeps_derived_values_behind_one_pointer() {
    // 408 bytes when each lazily made value had a cell of its own; 208
    // when the raw argument and result texts were copies (memory round 12);
    // 192 while its span id, name, tool and agent were copies and the raw
    // texts two borrowed slices (round 13).
    let size = std::mem::size_of::<super::Event<'_>>();
    assert!(size <= 136, "{size}");
    let l = log(vec![message("m", EventKind::User, "hi")]);
    assert!(l.events[0].derived.get().is_none());
    assert!(l.events[0].content_is_match(&regex::Regex::new("h").unwrap()));
    assert!(l.events[0].derived.get().is_some());
}
