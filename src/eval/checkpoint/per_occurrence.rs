//! The per-occurrence forms: `{each: Y, preceded_by: X}` — before EVERY Y
//! event, an X event since the previous Y (or since the start) — and
//! `{each: X, followed_by: Y}` — after EVERY X, a Y before the next X (or
//! the end); optionally `within: N` events. Captures taken by the `each`
//! event must be equal on the event found for it. With `none_between: Z`,
//! the search stops at the first Z event: no Z may lie between the two.

use crate::spec::matcher::Matcher;
use crate::spec::model::{Since, Until};
use crate::spec::suite::Side;

use super::matching::Bindings;
use super::{EventLog, Verdict};

const BY: &str = "tier2";
/// Occurrences named in the notes; the rest are counted.
const SHOWN: usize = 3;
/// Spans cited per verdict.
const CITED: usize = 20;

pub(super) fn each(
    each: &Matcher,
    other: &Matcher,
    side: Side,
    within: Option<u32>,
    none_between: Option<&Matcher>,
    log: &EventLog,
) -> Verdict {
    // The first event (in search order) that matches `other`, unless a
    // fence event comes first. An event matching both counts as the match.
    let search = |range: &mut dyn Iterator<Item = usize>, bindings: &Bindings| {
        for x in range {
            let e = &log.events[x];
            if e.bind(other, bindings).is_some() {
                return Some(x);
            }
            if none_between.is_some_and(|z| e.matches(z)) {
                return None;
            }
        }
        None
    };
    let occurrences: Vec<(usize, Bindings)> = log
        .events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.bind(each, &Bindings::new()).map(|b| (i, b)))
        .collect();
    if occurrences.is_empty() {
        return Verdict::not_applicable(
            "no event matches `each`, so there is nothing to check",
            BY,
        );
    }
    let n = log.events.len();
    let window = within.map_or(usize::MAX, |w| w as usize);
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for (k, (y, bindings)) in occurrences.iter().enumerate() {
        let y = *y;
        let hit = match side {
            Side::Before(since) => {
                let mut lo = match since {
                    Since::Previous => k.checked_sub(1).map_or(0, |p| occurrences[p].0 + 1),
                    Since::Start => 0,
                };
                lo = lo.max(y.saturating_sub(window));
                search(&mut (lo..y).rev(), bindings)
            }
            Side::After(until) => {
                let mut hi = match until {
                    Until::Next => occurrences.get(k + 1).map_or(n, |(next, _)| *next),
                    Until::End => n,
                };
                hi = hi.min(y.saturating_add(window).saturating_add(1));
                search(&mut ((y + 1)..hi), bindings)
            }
        };
        match hit {
            Some(x) => found.push((y, x)),
            None => missing.push((y, bindings)),
        }
    }
    let total = occurrences.len();
    let (key, place) = match side {
        Side::Before(Since::Previous) => {
            ("preceded_by", "before it since the previous `each` event")
        }
        Side::Before(Since::Start) => ("preceded_by", "before it"),
        Side::After(Until::Next) => ("followed_by", "after it before the next `each` event"),
        Side::After(Until::End) => ("followed_by", "after it"),
    };
    let mut window_text = within.map_or(String::new(), |w| {
        format!(" within {w} event{}", if w == 1 { "" } else { "s" })
    });
    if none_between.is_some() {
        window_text.push_str(" with no `none_between` event in between");
    }
    if missing.is_empty() {
        let cited = found
            .iter()
            .flat_map(|(y, x)| {
                [
                    log.events[*y].span_id.clone(),
                    log.events[*x].span_id.clone(),
                ]
            })
            .take(CITED);
        return Verdict::pass(
            format!(
                "all {total} `each` event{} have a `{key}` match {place}{window_text}",
                if total == 1 { "" } else { "s" }
            ),
            BY,
        )
        .citing(cited);
    }
    let shown: Vec<String> = missing
        .iter()
        .take(SHOWN)
        .map(|(y, bindings)| {
            let mut s = format!("{} at position {}", log.events[*y].describe(), y + 1);
            if !bindings.is_empty() {
                let values: Vec<String> = bindings
                    .iter()
                    .map(|(name, v)| format!("{name} = {}", crate::spec::json::brief(v)))
                    .collect();
                s.push_str(&format!(" ({})", values.join(", ")));
            }
            s
        })
        .collect();
    let more = missing.len().saturating_sub(SHOWN);
    let mut notes = format!(
        "{} of {total} `each` events have no `{key}` match {place}{window_text}: {}",
        missing.len(),
        shown.join("; ")
    );
    if more > 0 {
        notes.push_str(&format!("; and {more} more"));
    }
    Verdict::fail(notes, BY).citing(
        missing
            .iter()
            .map(|(y, _)| log.events[*y].span_id.clone())
            .take(CITED),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::run::CheckpointState::{Fail, NotApplicable, Pass};
    use crate::spec::model::EventKind::{Assistant, User};
    use crate::spec::suite::Side;
    use serde_json::json;

    use super::super::testing::{capturing, log, message, of_kind, on_tool, tool, tool_by};

    fn yes() -> Matcher {
        Matcher {
            content_matches: Some(regex::Regex::new(r"(?i)\byes\b").unwrap()),
            ..of_kind(User)
        }
    }

    /// user yes → write 1 → user yes → write 2 (the "confirmation before each write" trace).
    fn confirmed() -> Vec<super::super::Event> {
        vec![
            message("u1", User, "Yes, book it"),
            tool("t1", "book", json!({}), json!("ok")),
            message("a1", Assistant, "Cancel too? Say yes"),
            message("u2", User, "yes"),
            tool("t2", "cancel", json!({}), json!("ok")),
        ]
    }

    fn writes() -> Matcher {
        Matcher {
            tools: vec![crate::spec::matcher::ToolGlob::new("{book,cancel}").unwrap()],
            ..Matcher::default()
        }
    }

    #[test]
    fn preceded_by_needs_a_match_since_the_previous_occurrence() {
        let before = Side::Before(Since::Previous);
        let v = each(&writes(), &yes(), before, None, None, &log(confirmed()));
        assert_eq!(v.state, Pass, "{}", v.notes);
        assert_eq!(v.cited_spans, ["t1", "u1", "t2", "u2"]);
        // Remove the second confirmation: the first "yes" does not count for write 2.
        let mut events = confirmed();
        events.remove(3);
        let v = each(&writes(), &yes(), before, None, None, &log(events.clone()));
        assert_eq!(v.state, Fail);
        assert_eq!(v.cited_spans, ["t2"]);
        assert!(
            v.notes
                .starts_with("1 of 2 `each` events have no `preceded_by` match"),
            "{}",
            v.notes
        );
        // Since the start, the first "yes" is enough.
        let v = each(
            &writes(),
            &yes(),
            Side::Before(Since::Start),
            None,
            None,
            &log(events),
        );
        assert_eq!(v.state, Pass);
    }

    #[test]
    fn within_and_none_between_narrow_the_search() {
        let before = Side::Before(Since::Start);
        // u2 is 1 event before t2; u1 is 1 event before t1.
        let v = each(&writes(), &yes(), before, Some(1), None, &log(confirmed()));
        assert_eq!(v.state, Pass);
        let mut events = confirmed();
        events.insert(4, message("a2", Assistant, "Cancelling now"));
        let v = each(
            &writes(),
            &yes(),
            before,
            Some(1),
            None,
            &log(events.clone()),
        );
        assert_eq!(v.state, Fail, "the yes is 2 events before t2");
        assert!(v.notes.contains("within 1 event"), "{}", v.notes);
        assert_eq!(
            each(&writes(), &yes(), before, Some(2), None, &log(events)).state,
            Pass
        );
        // The user's LAST message must confirm: a later "no, wait" fences off the yes.
        let mut events = confirmed();
        events.insert(4, message("u3", User, "no, wait"));
        let fence = of_kind(User);
        let v = each(
            &writes(),
            &yes(),
            before,
            None,
            Some(&fence),
            &log(events.clone()),
        );
        assert_eq!(v.state, Fail);
        assert_eq!(v.cited_spans, ["t2"]);
        assert_eq!(
            each(&writes(), &yes(), before, None, None, &log(events)).state,
            Pass
        );
    }

    #[test]
    fn followed_by_looks_until_the_next_occurrence_or_the_end() {
        let report = Matcher {
            content_contains: Some("done".into()),
            ..of_kind(Assistant)
        };
        let events = vec![
            tool("t1", "book", json!({}), json!("ok")),
            tool("t2", "cancel", json!({}), json!("ok")),
            message("a1", Assistant, "both done"),
        ];
        let after_next = Side::After(Until::Next);
        let v = each(
            &writes(),
            &report,
            after_next,
            None,
            None,
            &log(events.clone()),
        );
        assert_eq!(v.state, Fail, "t1's report would have to come before t2");
        assert_eq!(v.cited_spans, ["t1"]);
        let v = each(
            &writes(),
            &report,
            Side::After(Until::End),
            None,
            None,
            &log(events),
        );
        assert_eq!(v.state, Pass);
    }

    #[test]
    fn no_occurrence_is_not_applicable() {
        let v = each(
            &on_tool("refund"),
            &yes(),
            Side::Before(Since::Previous),
            None,
            None,
            &log(confirmed()),
        );
        assert_eq!(v.state, NotApplicable);
        assert!(v.notes.contains("no event matches `each`"));
    }

    /// "Read THIS reservation before cancelling it", with the read done by
    /// a sub-agent and the cancellation by the main agent.
    #[test]
    fn captures_must_agree_across_sub_agents() {
        let cancel = capturing(on_tool("cancel"), "rid", "/args/id");
        let read = capturing(on_tool("read"), "rid", "/result/id");
        let events = |cancelled: &str| {
            vec![
                tool_by(
                    "r1",
                    "read",
                    json!({"id": "A"}),
                    json!({"id": "A"}),
                    "researcher",
                ),
                tool_by(
                    "r2",
                    "read",
                    json!({"id": "B"}),
                    json!({"id": "B"}),
                    "researcher",
                ),
                tool("c1", "cancel", json!({"id": cancelled}), json!("ok")),
            ]
        };
        let side = Side::Before(Since::Start);
        let v = each(&cancel, &read, side, None, None, &log(events("A")));
        assert_eq!(v.state, Pass, "{}", v.notes);
        assert_eq!(v.cited_spans, ["c1", "r1"]);
        let v = each(&cancel, &read, side, None, None, &log(events("C")));
        assert_eq!(v.state, Fail);
        assert!(v.notes.contains("(rid = \"C\")"), "{}", v.notes);
        // Numbers compare by value.
        let amount = capturing(on_tool("refund"), "amt", "/args/amount");
        let quoted = capturing(on_tool("read"), "amt", "/result/price");
        let events = vec![
            tool("r", "read", json!({}), json!({"price": 120})),
            tool("f", "refund", json!({"amount": 120.0}), json!("ok")),
        ];
        assert_eq!(
            each(&amount, &quoted, side, None, None, &log(events)).state,
            Pass
        );
    }
}
