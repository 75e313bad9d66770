//! Tests of the first-occurrence forms and of captures.

use super::*;
use crate::model::run::CheckpointState;
use crate::spec::matcher::ToolGlob;
use crate::spec::model::{EventKind, EventStatus};
use crate::trace::{Span, SpanKind, Status, ToolExecution, Trace, TraceFormat};
use serde_json::json;

fn tool_span(
    id: &str,
    seq: usize,
    name: &str,
    args: serde_json::Value,
    agent: &str,
    error: bool,
) -> Span {
    let mut s = Span::new(id, format!("execute_tool {name}"), SpanKind::Tool, seq);
    s.start = Some(seq as u64 * 10);
    s.parent = Some("root".into());
    s.agent = Some(agent.into());
    s.tool = Some(Box::new(ToolExecution {
        arguments_text: None,
        result_text: None,
        name: name.into(),
        call_id: None,
        arguments: Some(args.into()),
        result: None,
    }));
    if error {
        s.status = Status::error("boom");
    }
    s
}

fn llm_span(id: &str, seq: usize, agent: &str) -> Span {
    let mut s = Span::new(id, "chat", SpanKind::Llm, seq);
    s.start = Some(seq as u64 * 10);
    s.parent = Some("root".into());
    s.agent = Some(agent.into());
    s
}

/// root(main) → llm s1 → lookup → sub-agent's search (nested) → refund(error) → llm s5 (final)
fn trace() -> Trace {
    let mut root = Span::new("root", "invoke_agent", SpanKind::Agent, 0);
    root.agent = Some("main".into());
    root.start = Some(0);
    let mut nested = tool_span(
        "t3",
        3,
        "search",
        json!({"q": "refund policy"}),
        "researcher",
        false,
    );
    nested.parent = Some("t2".into());
    Trace {
        id: "t".into(),
        format: TraceFormat::Otlp,
        spans: vec![
            root,
            llm_span("s1", 1, "main"),
            tool_span(
                "t2",
                2,
                "lookup_account",
                json!({"account_id": "A-17", "opts": {"deep": true}}),
                "main",
                false,
            ),
            nested,
            tool_span("t4", 4, "issue_refund", json!({"amount": 20}), "main", true),
            llm_span("s5", 5, "main"),
        ],
        final_output: None,
        metadata: std::collections::BTreeMap::default(),
        warnings: vec![],
    }
    .finish()
}

fn tool(name: &str) -> Matcher {
    Matcher {
        tools: vec![ToolGlob::new(name).unwrap()],
        ..Matcher::default()
    }
}

#[test]
fn before_then_pass_fail_and_na() {
    let trace = trace();
    let log = EventLog::from_trace(&trace);
    let final_llm = Matcher {
        kind: Some(EventKind::Llm),
        is_final: Some(true),
        ..Matcher::default()
    };
    let v = eval_sequence(
        &SequenceAssert::BeforeThen {
            before: tool("lookup_*"),
            then: final_llm.clone(),
        },
        &log,
    );
    assert_eq!(v.state, CheckpointState::Pass);
    assert_eq!(v.cited_spans, ["t2", "s5"]);
    let v = eval_sequence(
        &SequenceAssert::BeforeThen {
            before: tool("issue_refund"),
            then: tool("lookup_account"),
        },
        &log,
    );
    assert_eq!(v.state, CheckpointState::Fail, "{}", v.notes);
    // The notes say what was missing in words, not in the checkpoint's keys.
    assert_eq!(
        v.notes,
        "tool `lookup_account` (span t2) (position 3) ran before the first call to `issue_refund`: \
         tool `issue_refund` (span t4) (position 5)"
    );
    let v = eval_sequence(
        &SequenceAssert::BeforeThen {
            before: Matcher {
                status: Some(EventStatus::Ok),
                ..tool("approve")
            },
            then: tool("issue_refund"),
        },
        &log,
    );
    assert_eq!(
        v.notes,
        "tool `issue_refund` (span t4) (position 5) ran with no successful call to `approve` before it"
    );
    let v = eval_sequence(
        &SequenceAssert::BeforeThen {
            before: Matcher {
                args_contains: Some(json!({"ok": true})),
                ..tool("approve")
            },
            then: tool("issue_refund"),
        },
        &log,
    );
    assert!(
        v.notes
            .ends_with("ran with no event matching the checkpoint's `before` before it"),
        "{}",
        v.notes
    );
    let v = eval_sequence(
        &SequenceAssert::BeforeThen {
            before: tool("lookup_account"),
            then: tool("nope"),
        },
        &log,
    );
    assert_eq!(v.state, CheckpointState::NotApplicable);
    assert!(v.notes.contains("no event matches `then`"));
}

#[test]
fn nested_sub_agent_events_count() {
    let trace = trace();
    let log = EventLog::from_trace(&trace);
    let by_agent = Matcher {
        agent: Some("researcher".into()),
        ..tool("search")
    };
    assert_eq!(
        eval_sequence(&SequenceAssert::Eventually(by_agent), &log).state,
        CheckpointState::Pass
    );
    let v = eval_sequence(
        &SequenceAssert::Order(vec![
            tool("lookup_account"),
            tool("search"),
            tool("issue_refund"),
        ]),
        &log,
    );
    assert_eq!(v.state, CheckpointState::Pass);
    let v = eval_sequence(
        &SequenceAssert::Order(vec![tool("search"), tool("lookup_account")]),
        &log,
    );
    assert_eq!(v.state, CheckpointState::Fail);
    assert!(v.notes.contains("step 2 of 2"));
}

#[test]
fn never_count_status_and_args() {
    let trace = trace();
    let log = EventLog::from_trace(&trace);
    let v = eval_sequence(&SequenceAssert::Never(tool("issue_refund")), &log);
    assert_eq!(
        (v.state, v.cited_spans.clone()),
        (CheckpointState::Fail, vec!["t4".to_owned()])
    );
    let errors = Matcher {
        kind: Some(EventKind::Tool),
        status: Some(EventStatus::Error),
        ..Matcher::default()
    };
    let v = eval_sequence(
        &SequenceAssert::Count {
            of: errors,
            min: None,
            max: Some(0),
        },
        &log,
    );
    assert_eq!(v.state, CheckpointState::Fail);
    assert_eq!(v.notes, "1 matching event (allowed ≤ 0)");
    let sub = Matcher {
        args_contains: Some(json!({"opts": {"deep": true}})),
        ..tool("lookup_account")
    };
    assert_eq!(
        eval_sequence(&SequenceAssert::Eventually(sub), &log).state,
        CheckpointState::Pass
    );
    let re = Matcher {
        args_match: Some(regex::Regex::new(r#""account_id":"A-\d+""#).unwrap()),
        ..tool("*")
    };
    assert_eq!(
        eval_sequence(&SequenceAssert::Eventually(re), &log).state,
        CheckpointState::Pass
    );
    let wrong = Matcher {
        args_contains: Some(json!("A-99")),
        ..tool("lookup_account")
    };
    assert_eq!(
        eval_sequence(&SequenceAssert::Eventually(wrong), &log).state,
        CheckpointState::Fail
    );
}

mod captures {
    use super::super::super::testing::{capturing, log, on_tool, tool};
    use super::*;

    fn reads_then_cancel(cancelled: &str) -> EventLog<'static> {
        log(vec![
            tool(
                "r1",
                "read",
                json!({"id": "A"}),
                json!({"id": "A", "cabin": "economy"}),
            ),
            tool(
                "r2",
                "read",
                json!({"id": "B"}),
                json!({"id": "B", "cabin": "basic_economy"}),
            ),
            tool("c1", "cancel", json!({"id": cancelled}), json!("ok")),
            tool(
                "u1",
                "update",
                json!({"id": cancelled, "cabin": "basic_economy"}),
                json!("ok"),
            ),
        ])
    }

    fn read() -> Matcher {
        capturing(on_tool("read"), "rid", "/args/id")
    }

    fn cancel() -> Matcher {
        capturing(on_tool("cancel"), "rid", "/args/id")
    }

    #[test]
    fn before_then_compares_captures_with_the_first_then_event() {
        let form = SequenceAssert::BeforeThen {
            before: read(),
            then: cancel(),
        };
        let v = eval_sequence(&form, &reads_then_cancel("B"));
        assert_eq!(v.state, CheckpointState::Pass, "{}", v.notes);
        assert_eq!(v.cited_spans, ["r2", "c1"]);
        assert!(v.notes.ends_with("with rid = \"B\""), "{}", v.notes);
        let v = eval_sequence(&form, &reads_then_cancel("Z"));
        assert_eq!(v.state, CheckpointState::Fail);
        assert!(
            v.notes.contains("but by none with rid = \"Z\""),
            "{}",
            v.notes
        );
    }

    #[test]
    fn order_backtracks_to_find_equal_captures() {
        // The greedy first `read` (A) does not fit the cancel of B; the second one does.
        let form = SequenceAssert::Order(vec![read(), cancel()]);
        let v = eval_sequence(&form, &reads_then_cancel("B"));
        assert_eq!(v.state, CheckpointState::Pass, "{}", v.notes);
        assert_eq!(v.cited_spans, ["r2", "c1"]);
        let v = eval_sequence(&form, &reads_then_cancel("Z"));
        assert_eq!(v.state, CheckpointState::Fail);
        assert!(
            v.notes.contains("never with equal captured values"),
            "{}",
            v.notes
        );
    }

    #[test]
    fn never_forbids_a_sequence_with_equal_captures() {
        let basic = Matcher {
            result_contains: Some(json!({"cabin": "basic_economy"})),
            ..read()
        };
        let change = Matcher {
            args_contains: Some(json!({"cabin": "basic_economy"})),
            ..capturing(on_tool("update"), "rid", "/args/id")
        };
        let form = SequenceAssert::NeverOrder(vec![basic, change]);
        // Updating B (read as basic economy) is forbidden; updating A is not.
        let v = eval_sequence(&form, &reads_then_cancel("B"));
        assert_eq!(v.state, CheckpointState::Fail);
        assert_eq!(v.cited_spans, ["r2", "u1"]);
        assert!(
            v.notes.starts_with("forbidden sequence found: tool `read`"),
            "{}",
            v.notes
        );
        assert_eq!(
            eval_sequence(&form, &reads_then_cancel("A")).state,
            CheckpointState::Pass
        );
    }

    /// A search that cannot finish within its budget is N/A `search_limit`
    /// (the gate counts it unevaluated), for `order` and `never: [X, Y]`
    /// as for the per-occurrence forms.
    #[test]
    fn an_exhausted_capture_search_is_na_search_limit_with_its_reason() {
        let events: Vec<_> = (0..3000)
            .map(|i| tool(format!("t{i}").leak(), "step", json!({"n": i}), json!(null)))
            .collect();
        let step = || capturing(on_tool("step"), "n", "/args/n");
        let events = log(events);
        for form in [
            SequenceAssert::Order(vec![step(), step(), step()]),
            SequenceAssert::NeverOrder(vec![step(), step(), step()]),
        ] {
            let v = eval_sequence(&form, &events);
            assert_eq!(v.state, CheckpointState::NotApplicable, "{form:?}");
            assert_eq!(v.na_kind, Some(NaKind::SearchLimit), "{form:?}");
            assert!(v.notes.starts_with("could not be decided"), "{}", v.notes);
        }
    }
}

/// `never: [X, Y]` where no event can be Y by its fields passes without
/// evaluating X's `where` (the same verdict as the search's); once a Y may
/// match (here through `any_of`), the search runs, and X's `where` that
/// cannot be evaluated counts, as it always has without captures, as a
/// possible match: the sequence is reported, never passed.
#[test]
fn a_never_sequence_with_an_impossible_step_passes_without_evaluating() {
    use super::super::testing::{log, on_tool, tool};
    let read = Matcher {
        where_: Some(std::sync::Arc::new(
            crate::spec::expr::compile("result.cabin > 1", crate::spec::matcher::EVENT_VARS)
                .unwrap(),
        )),
        ..on_tool("read")
    };
    let update = Matcher {
        any_of: vec![on_tool("update_a"), on_tool("update_b")],
        ..Matcher::default()
    };
    let steps = [read, update];
    let events = |second: &'static str| {
        vec![
            tool("r", "read", json!({}), json!({"cabin": "economy"})),
            tool("u", second, json!({}), json!("ok")),
        ]
    };
    let l = log(events("other"));
    assert!(!l.events.iter().any(|e| e.may_match(&steps[1])));
    let v = eval_sequence(&SequenceAssert::NeverOrder(steps.to_vec()), &l);
    assert_eq!(v.state, CheckpointState::Pass, "{}", v.notes);
    assert!(v.notes.contains("does not occur"), "{}", v.notes);
    let l = log(events("update_b"));
    assert!(l.events.iter().any(|e| e.may_match(&steps[1])));
    let v = eval_sequence(&SequenceAssert::NeverOrder(steps.to_vec()), &l);
    assert_eq!(v.state, CheckpointState::Fail, "{}", v.notes);
    assert!(v.notes.contains("forbidden sequence found"), "{}", v.notes);
}
