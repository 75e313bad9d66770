//! Tier 2: sequence assertions over the event log (DESIGN §13 forms).

use crate::spec::suite::{Matcher, SequenceAssert};

use super::{EventLog, Verdict};

const BY: &str = "tier2";

pub fn eval_sequence(assert: &SequenceAssert, log: &EventLog) -> Verdict {
    match assert {
        SequenceAssert::BeforeThen { before, then } => before_then(before, then, log),
        SequenceAssert::Never(m) => match log.first(m) {
            Some(i) => {
                let e = &log.events[i];
                Verdict::fail(
                    format!("forbidden event at position {}: {}", i + 1, e.describe()),
                    BY,
                )
                .citing([e.span_id.clone()])
            }
            None => Verdict::pass(
                format!("no matching event among {} events", log.events.len()),
                BY,
            ),
        },
        SequenceAssert::Eventually(m) => match log.first(m) {
            Some(i) => {
                let e = &log.events[i];
                Verdict::pass(format!("found at position {}: {}", i + 1, e.describe()), BY)
                    .citing([e.span_id.clone()])
            }
            None => Verdict::fail(
                format!("no matching event among {} events", log.events.len()),
                BY,
            ),
        },
        SequenceAssert::Count { of, min, max } => {
            let hits: Vec<String> = log.matching(of).map(|(_, e)| e.span_id.clone()).collect();
            let n = hits.len() as u32;
            let range = match (min, max) {
                (Some(a), Some(b)) => format!("{a}..={b}"),
                (Some(a), None) => format!("≥ {a}"),
                (None, Some(b)) => format!("≤ {b}"),
                (None, None) => "any".to_owned(),
            };
            let ok = min.is_none_or(|a| n >= a) && max.is_none_or(|b| n <= b);
            let notes = format!(
                "{n} matching event{} (allowed {range})",
                if n == 1 { "" } else { "s" }
            );
            let v = if ok {
                Verdict::pass(notes, BY)
            } else {
                Verdict::fail(notes, BY)
            };
            v.citing(hits)
        }
        SequenceAssert::Order(steps) => order(steps, log),
    }
}

fn before_then(before: &Matcher, then: &Matcher, log: &EventLog) -> Verdict {
    let Some(y) = log.first(then) else {
        return Verdict::not_applicable(
            "no event matches `then`, so the order cannot be checked",
            BY,
        );
    };
    let then_event = &log.events[y];
    match log.first(before) {
        Some(x) if x < y => Verdict::pass(
            format!(
                "{} (position {}) precedes {} (position {})",
                log.events[x].describe(),
                x + 1,
                then_event.describe(),
                y + 1
            ),
            BY,
        )
        .citing([log.events[x].span_id.clone(), then_event.span_id.clone()]),
        Some(x) => Verdict::fail(
            format!(
                "{} (position {}) happened before the first `before` event {} (position {})",
                then_event.describe(),
                y + 1,
                log.events[x].describe(),
                x + 1
            ),
            BY,
        )
        .citing([then_event.span_id.clone(), log.events[x].span_id.clone()]),
        None => Verdict::fail(
            format!(
                "{} (position {}) happened with no `before` event at all",
                then_event.describe(),
                y + 1
            ),
            BY,
        )
        .citing([then_event.span_id.clone()]),
    }
}

fn order(steps: &[Matcher], log: &EventLog) -> Verdict {
    let mut cited = Vec::new();
    let mut from = 0;
    for (k, m) in steps.iter().enumerate() {
        if let Some(offset) = log.events[from..].iter().position(|e| e.matches(m)) {
            let i = from + offset;
            cited.push(log.events[i].span_id.clone());
            from = i + 1;
        } else {
            let after = if k == 0 {
                "in the trace".to_owned()
            } else {
                format!("after position {from}")
            };
            return Verdict::fail(
                format!(
                    "step {} of {} of the order not found {after}",
                    k + 1,
                    steps.len()
                ),
                BY,
            )
            .citing(cited);
        }
    }
    Verdict::pass(format!("all {} steps occur in order", steps.len()), BY).citing(cited)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::CheckpointState;
    use crate::spec::model::{EventKind, EventStatus};
    use crate::spec::suite::Glob;
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
        s.tool = Some(ToolExecution {
            name: name.into(),
            call_id: None,
            arguments: Some(args),
            result: None,
        });
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
            tools: vec![Glob::new(name)],
            ..Matcher::default()
        }
    }

    #[test]
    fn before_then_pass_fail_and_na() {
        let log = EventLog::from_trace(&trace());
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
        let log = EventLog::from_trace(&trace());
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
        let log = EventLog::from_trace(&trace());
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
}
