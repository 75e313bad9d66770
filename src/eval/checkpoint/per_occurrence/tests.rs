use super::*;
use crate::model::run::CheckpointState::{Fail, NotApplicable, Pass};
use crate::spec::model::EventKind::{Assistant, User};
use crate::spec::suite::Side;
use serde_json::json;

use super::super::matching::Captured;
use super::super::testing::{capturing, log, message, of_kind, on_tool, tool, tool_by};

fn yes() -> Matcher {
    Matcher {
        content_matches: Some(regex::Regex::new(r"(?i)\byes\b").unwrap()),
        ..of_kind(User)
    }
}

/// user yes → write 1 → user yes → write 2 (the "confirmation before each write" trace).
fn confirmed() -> Vec<super::super::Event<'static>> {
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
    let v = each(
        &writes(),
        std::slice::from_ref(&yes()),
        before,
        None,
        None,
        &log(confirmed()),
    );
    assert_eq!(v.state, Pass, "{}", v.notes);
    assert_eq!(v.cited_spans, ["t1", "u1", "t2", "u2"]);
    // Remove the second confirmation: the first "yes" does not count for write 2.
    let mut events = confirmed();
    events.remove(3);
    let v = each(
        &writes(),
        std::slice::from_ref(&yes()),
        before,
        None,
        None,
        &log(events.clone()),
    );
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
        std::slice::from_ref(&yes()),
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
    let v = each(
        &writes(),
        std::slice::from_ref(&yes()),
        before,
        Some(1),
        None,
        &log(confirmed()),
    );
    assert_eq!(v.state, Pass);
    let mut events = confirmed();
    events.insert(4, message("a2", Assistant, "Cancelling now"));
    let v = each(
        &writes(),
        std::slice::from_ref(&yes()),
        before,
        Some(1),
        None,
        &log(events.clone()),
    );
    assert_eq!(v.state, Fail, "the yes is 2 events before t2");
    assert!(v.notes.contains("within 1 event"), "{}", v.notes);
    assert_eq!(
        each(
            &writes(),
            std::slice::from_ref(&yes()),
            before,
            Some(2),
            None,
            &log(events)
        )
        .state,
        Pass
    );
    // The user's LAST message must confirm: a later "no, wait" fences off the yes.
    let mut events = confirmed();
    events.insert(4, message("u3", User, "no, wait"));
    let fence = of_kind(User);
    let v = each(
        &writes(),
        std::slice::from_ref(&yes()),
        before,
        None,
        Some(&fence),
        &log(events.clone()),
    );
    assert_eq!(v.state, Fail);
    assert_eq!(v.cited_spans, ["t2"]);
    assert_eq!(
        each(
            &writes(),
            std::slice::from_ref(&yes()),
            before,
            None,
            None,
            &log(events)
        )
        .state,
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
        std::slice::from_ref(&report),
        after_next,
        None,
        None,
        &log(events.clone()),
    );
    assert_eq!(v.state, Fail, "t1's report would have to come before t2");
    assert_eq!(v.cited_spans, ["t1"]);
    let v = each(
        &writes(),
        std::slice::from_ref(&report),
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
        std::slice::from_ref(&yes()),
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
    let v = each(
        &cancel,
        std::slice::from_ref(&read),
        side,
        None,
        None,
        &log(events("A")),
    );
    assert_eq!(v.state, Pass, "{}", v.notes);
    assert_eq!(v.cited_spans, ["c1", "r1"]);
    let v = each(
        &cancel,
        std::slice::from_ref(&read),
        side,
        None,
        None,
        &log(events("C")),
    );
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
        each(
            &amount,
            std::slice::from_ref(&quoted),
            side,
            None,
            None,
            &log(events)
        )
        .state,
        Pass
    );
}

fn where_(m: Matcher, src: &str) -> Matcher {
    Matcher {
        where_: Some(std::sync::Arc::new(
            crate::spec::expr::compile(src, crate::spec::matcher::EVENT_VARS).unwrap(),
        )),
        ..m
    }
}

/// Issue 24, gap 1: "the agent lists the details, then the user says
/// yes, then the write", with the user's LAST message before it.
#[test]
fn an_ordered_list_of_steps_must_occur_in_the_window() {
    let listed = Matcher {
        content_matches: Some(regex::Regex::new(r"(?i)confirm").unwrap()),
        ..of_kind(Assistant)
    };
    let steps = [listed, yes()];
    let fence = of_kind(User);
    let before = Side::Before(Since::Previous);
    let trace = |first: &str, last: &str| {
        vec![
            message("u0", User, first),
            message(
                "a1",
                Assistant,
                "Cancel ABC, refund $100. Please confirm (yes).",
            ),
            message("u1", User, last),
            tool("t1", "cancel", json!({}), json!("ok")),
        ]
    };
    let v = each(
        &writes(),
        &steps,
        before,
        None,
        Some(&fence),
        &log(trace("Cancel ABC", "yes")),
    );
    assert_eq!(v.state, Pass, "{}", v.notes);
    assert_eq!(v.cited_spans, ["t1", "u1", "a1"]);
    assert!(v.notes.contains("(all 2 steps, in order)"), "{}", v.notes);
    // A stray "yes, go ahead" in the request, no yes after the details.
    let v = each(
        &writes(),
        &steps,
        before,
        None,
        Some(&fence),
        &log(trace("yes, cancel ABC", "hmm")),
    );
    assert_eq!(v.state, Fail, "{}", v.notes);
    // Without the assistant's listing the yes alone does not do.
    let mut events = trace("Cancel ABC", "yes");
    events.remove(1);
    let v = each(&writes(), &steps, before, None, Some(&fence), &log(events));
    assert_eq!(v.state, Fail, "{}", v.notes);
    // The fence applies to the whole window: a user message between the
    // listing and the yes breaks the pair, even though the user's last
    // message says yes.
    let mut events = trace("Cancel ABC", "yes");
    events.insert(2, message("u2", User, "what about my refund?"));
    let v = each(
        &writes(),
        &steps,
        before,
        None,
        Some(&fence),
        &log(events.clone()),
    );
    assert_eq!(v.state, Fail, "{}", v.notes);
    // Without the fence, any listing before the yes will do.
    let v = each(&writes(), &steps, before, None, None, &log(events));
    assert_eq!(v.state, Pass, "{}", v.notes);
    let mut events = trace("Cancel ABC", "yes");
    events.insert(3, message("u2", User, "wait, no"));
    let v = each(&writes(), &steps, before, None, Some(&fence), &log(events));
    assert_eq!(v.state, Fail, "{}", v.notes);
}

#[test]
fn where_compares_with_captures_and_errors_are_recorded() {
    let read = capturing(on_tool("read"), "bags", "/result/bags");
    let update = where_(
        capturing(on_tool("update"), "rid", "/args/id"),
        "args.bags >= captures.bags",
    );
    let read = capturing(read, "rid", "/result/id");
    let events = |bags: i64| {
        vec![
            tool("r", "read", json!({}), json!({"id": "A", "bags": 2})),
            tool("u", "update", json!({"id": "A", "bags": bags}), json!("ok")),
        ]
    };
    let side = Side::Before(Since::Start);
    // The `where` of the `each` event runs before the read's captures
    // are bound: it reads its own captures only, so put it on the read.
    let guarded = where_(read.clone(), "true");
    let ok = each(
        &capturing(on_tool("update"), "rid", "/args/id"),
        std::slice::from_ref(&guarded),
        side,
        None,
        None,
        &log(events(3)),
    );
    assert_eq!(ok.state, Pass, "{}", ok.notes);
    let l = log(events(3));
    let v = each(&update, std::slice::from_ref(&read), side, None, None, &l);
    assert_eq!(v.state, NotApplicable, "nothing matched `each`");
    let err = l.take_error().unwrap();
    assert!(
        err.contains("captures.bags") || err.contains("bags"),
        "{err}"
    );
    // Compared on the read, with the update's captures in scope.
    let bags_kept = where_(capturing(on_tool("update"), "new", "/args/bags"), "true");
    let read_le = where_(read, "result.bags <= captures.new");
    for (bags, state) in [(3, Pass), (2, Pass), (1, Fail)] {
        let v = each(
            &bags_kept,
            std::slice::from_ref(&read_le),
            side,
            None,
            None,
            &log(events(bags)),
        );
        assert_eq!(v.state, state, "bags {bags}: {}", v.notes);
    }
}

#[test]
fn combinators_select_events() {
    let cancelled = Matcher {
        any_of: vec![
            Matcher {
                content_matches: Some(regex::Regex::new(r"(?i)airline cancelled").unwrap()),
                ..of_kind(User)
            },
            where_(on_tool("read"), "result.cabin == 'business'"),
        ],
        ..Matcher::default()
    };
    let events = |cabin: &str, said: &str| {
        vec![
            message("u", User, said),
            tool("r", "read", json!({}), json!({"cabin": cabin})),
            tool("c", "cancel", json!({}), json!("ok")),
        ]
    };
    let side = Side::Before(Since::Start);
    let cancel = on_tool("cancel");
    let check = |cabin: &str, said: &str| {
        each(
            &cancel,
            std::slice::from_ref(&cancelled),
            side,
            None,
            None,
            &log(events(cabin, said)),
        )
        .state
    };
    assert_eq!(check("business", "hi"), Pass);
    assert_eq!(check("economy", "the airline cancelled my flight"), Pass);
    assert_eq!(check("economy", "hi"), Fail);
    let not_basic = Matcher {
        not: Some(Box::new(where_(
            on_tool("read"),
            "result.cabin == 'basic_economy'",
        ))),
        ..on_tool("read")
    };
    assert_eq!(
        each(
            &cancel,
            std::slice::from_ref(&not_basic),
            side,
            None,
            None,
            &log(events("economy", ""))
        )
        .state,
        Pass
    );
    assert_eq!(
        each(
            &cancel,
            std::slice::from_ref(&not_basic),
            side,
            None,
            None,
            &log(events("basic_economy", ""))
        )
        .state,
        Fail
    );
}

#[test]
fn turn_fields_count_calls_and_replies() {
    use super::super::Event;
    use crate::spec::model::{CountRange, EventKind::Llm};
    let llm = |id: &'static str| Event::new(id, "chat", Llm, Some("main"));
    let events = vec![
        llm("l1"),
        tool("t1", "read", json!({}), json!("ok")),
        tool("t2", "read", json!({}), json!("ok")),
        llm("l2"),
        message("a2", Assistant, "done"),
        tool("t3", "cancel", json!({}), json!("ok")),
    ];
    let l = log(events);
    let fields: Vec<(u32, u32, u32)> = l
        .events
        .iter()
        .map(|e| (e.turn, e.turn_tool_calls, e.turn_replies))
        .collect();
    assert_eq!(
        fields,
        [
            (1, 2, 0),
            (1, 2, 0),
            (1, 2, 0),
            (2, 1, 1),
            (2, 1, 1),
            (2, 1, 1)
        ]
    );
    let parallel = Matcher {
        turn_tool_calls: Some(CountRange {
            min: Some(2),
            max: None,
        }),
        ..of_kind(Llm)
    };
    assert_eq!(
        l.matching(&parallel).map(|(i, _)| i).collect::<Vec<_>>(),
        [0]
    );
    let mixed = where_(of_kind(Llm), "turn_tool_calls > 0 && turn_replies > 0");
    assert_eq!(l.matching(&mixed).map(|(i, _)| i).collect::<Vec<_>>(), [3]);
}

/// Ordered steps that bind captures: user → reservation read → cancel,
/// where the reservation's owner must be a user read earlier. The nearest
/// read of the reservation names owner `b`, whom no user read shows; the
/// one before names `a`, who was read: the search must try it.
fn owner_steps() -> (Matcher, Vec<Matcher>) {
    let cancel = capturing(on_tool("cancel"), "rid", "/args/id");
    let user = capturing(on_tool("read_user"), "uid", "/result/uid");
    let res = capturing(
        capturing(on_tool("read_res"), "rid", "/result/id"),
        "uid",
        "/result/owner",
    );
    (cancel, vec![user, res])
}

fn owner_events(with_user_a: bool) -> Vec<super::super::Event<'static>> {
    let mut events = vec![
        tool("ua", "read_user", json!({}), json!({"uid": "a"})),
        tool(
            "ra",
            "read_res",
            json!({}),
            json!({"id": "R", "owner": "a"}),
        ),
        tool(
            "rb",
            "read_res",
            json!({}),
            json!({"id": "R", "owner": "b"}),
        ),
        tool("c", "cancel", json!({"id": "R"}), json!("ok")),
    ];
    if !with_user_a {
        events.remove(0);
    }
    events
}

#[test]
fn ordered_steps_backtrack_over_captured_values() {
    let (cancel, steps) = owner_steps();
    let side = Side::Before(Since::Start);
    let v = each(&cancel, &steps, side, None, None, &log(owner_events(true)));
    assert_eq!(v.state, Pass, "{}", v.notes);
    // The second candidate (`ra`, owner a) and the user read `ua`.
    assert_eq!(v.cited_spans, ["c", "ra", "ua"]);
    // No user `a` read: no candidate works, a FAIL.
    let v = each(&cancel, &steps, side, None, None, &log(owner_events(false)));
    assert_eq!(v.state, Fail, "{}", v.notes);
    assert!(v.notes.contains("(rid = \"R\")"), "{}", v.notes);
    // followed_by backtracks too: cancel → read_res (owner b) → read_res
    // (owner a) → read_user a, in the other direction.
    let mut events = owner_events(true);
    events.reverse();
    let v = each(
        &cancel,
        &[steps[1].clone(), steps[0].clone()],
        Side::After(Until::End),
        None,
        None,
        &log(events),
    );
    assert_eq!(v.state, Pass, "{}", v.notes);
    assert_eq!(v.cited_spans, ["c", "ra", "ua"]);
}

#[test]
fn a_skipped_candidate_is_a_fence_and_the_budget_is_not_a_pass() {
    let (cancel, steps) = owner_steps();
    let side = Side::Before(Since::Start);
    // `none_between: read_res`: the skipped `rb` lies between `ra` and the
    // cancel, so the match through `ra` is not allowed.
    let fence = on_tool("read_res");
    let v = each(
        &cancel,
        &steps,
        side,
        None,
        Some(&fence),
        &log(owner_events(true)),
    );
    assert_eq!(v.state, Fail, "{}", v.notes);
    // Out of budget: N/A `search_limit`, never a pass or a guess.
    let events = log(owner_events(true));
    let order: Vec<&Matcher> = steps.iter().rev().collect();
    let mut search = Search {
        log: &events,
        order: &order,
        fence: None,
        backtrack: true,
        budget: 2,
        failed: HashSet::new(),
    };
    let rid = json!("R");
    let bindings: Bindings = [("rid".to_owned(), Captured::Event(&rid))].into();
    assert_eq!(
        search.run(&Window::Backward(0..3), &bindings),
        Hit::OutOfBudget
    );
    let v = too_long(3, &events);
    assert_eq!(v.state, NotApplicable);
    assert_eq!(v.na_kind, Some(NaKind::SearchLimit));
    assert!(v.notes.contains("gave up after"), "{}", v.notes);
}
