//! Tool calls models requested, waiting for the spans that execute them.
//!
//! When the adapter recorded which model span requested an execution (the
//! tool span's `requested_by` attribute, set for chat trajectories whose call
//! ids repeat), only that span's requests are considered first. Otherwise, or
//! when none of them fits, an execution is matched to a request by call id —
//! ids may repeat, so the oldest unexecuted request with that id wins, and an
//! id whose request already ran (same tool) is a re-execution of it — else by
//! order among unexecuted requests of the same tool, preferring the same
//! agent and equal arguments. Final-answer requests are kept apart: their
//! execution adds no node, the SYNTH was made from the request.

use crate::model::ShortText;
use crate::trace::SharedValue;

/// A tool call a model requested.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    pub(crate) agent: String,
    /// The model span that requested it.
    span: String,
    pub(crate) call_id: Option<ShortText>,
    pub(crate) tool: String,
    pub(crate) args: SharedValue,
    /// Its PARAMGEN node.
    pub(crate) paramgen: usize,
    executed: bool,
}

/// A new request.
#[derive(Debug, Clone)]
pub(crate) struct Request<'a> {
    pub(crate) span: &'a str,
    pub(crate) agent: &'a str,
    pub(crate) call_id: Option<ShortText>,
    pub(crate) tool: &'a str,
    pub(crate) args: SharedValue,
    pub(crate) paramgen: usize,
}

/// What a tool span says about the call it executes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Execution<'a> {
    pub(crate) agent: &'a str,
    pub(crate) call_id: Option<&'a str>,
    pub(crate) tool: &'a str,
    pub(crate) args: Option<&'a SharedValue>,
    /// The model span the adapter says requested it.
    pub(crate) requested_by: Option<&'a str>,
}

#[derive(Debug, Default)]
pub(crate) struct PendingCalls {
    calls: Vec<Pending>,
    /// Every call before this index has been executed (scans start here,
    /// which keeps matching linear when calls run in the order requested).
    first_open: usize,
    /// Final-answer requests: (call id, already executed).
    finals: Vec<(Option<ShortText>, bool)>,
}

impl PendingCalls {
    pub(crate) fn request(&mut self, r: Request<'_>) {
        self.calls.push(Pending {
            agent: r.agent.to_owned(),
            span: r.span.to_owned(),
            call_id: r.call_id,
            tool: r.tool.to_owned(),
            args: r.args,
            paramgen: r.paramgen,
            executed: false,
        });
    }

    pub(crate) fn request_final(&mut self, call_id: Option<ShortText>) {
        self.finals.push((call_id, false));
    }

    /// Whether a final-answer execution answers a request (and mark it executed).
    pub(crate) fn execute_final(&mut self, call_id: Option<&str>) -> bool {
        let k = self
            .finals
            .iter()
            .position(|(id, done)| !done && call_id.is_some() && id.as_deref() == call_id)
            .or_else(|| self.finals.iter().position(|(_, done)| !done));
        if let Some(k) = k {
            self.finals[k].1 = true;
        }
        k.is_some()
    }

    /// The request a tool execution answers, marked executed.
    pub(crate) fn execute(&mut self, exec: &Execution<'_>) -> Option<&Pending> {
        let k = exec
            .requested_by
            .and_then(|span| self.find(exec, |p| p.span == span))
            .or_else(|| self.find(exec, |_| true))?;
        self.calls[k].executed = true;
        while self.calls.get(self.first_open).is_some_and(|p| p.executed) {
            self.first_open += 1;
        }
        Some(&self.calls[k])
    }

    fn find(&self, exec: &Execution<'_>, allowed: impl Fn(&Pending) -> bool) -> Option<usize> {
        if let Some(id) = exec.call_id {
            let same_id = |p: &Pending| allowed(p) && p.call_id.as_deref() == Some(id);
            let open = &self.calls[self.first_open..];
            if let Some(k) = open.iter().position(|p| !p.executed && same_id(p)) {
                return Some(self.first_open + k);
            }
            if let Some(k) = self
                .calls
                .iter()
                .rposition(|p| same_id(p) && p.tool == exec.tool)
            {
                return Some(k);
            }
        }
        let rank = |p: &Pending| {
            (
                p.agent != exec.agent,
                exec.args.is_some_and(|a| *a != p.args),
            )
        };
        self.calls
            .iter()
            .enumerate()
            .skip(self.first_open)
            .filter(|(_, p)| allowed(p) && !p.executed && p.tool == exec.tool)
            .min_by_key(|(k, p)| (rank(p), *k))
            .map(|(k, _)| k)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use serde_json::Value;

    use super::*;

    fn request(
        p: &mut PendingCalls,
        span: &str,
        id: Option<&str>,
        tool: &str,
        args: Value,
        paramgen: usize,
    ) {
        p.request(Request {
            span,
            agent: "",
            call_id: id.map(Into::into),
            tool,
            args: args.into(),
            paramgen,
        });
    }

    fn exec<'a>(
        call_id: Option<&'a str>,
        tool: &'a str,
        args: Option<&'a SharedValue>,
    ) -> Execution<'a> {
        Execution {
            agent: "",
            call_id,
            tool,
            args,
            requested_by: None,
        }
    }

    fn paramgen(p: &mut PendingCalls, e: Execution<'_>) -> Option<usize> {
        p.execute(&e).map(|c| c.paramgen)
    }

    #[test]
    fn ids_first_then_reexecution_then_order() {
        let mut p = PendingCalls::default();
        request(&mut p, "m0", Some("X"), "a", json!(1), 10);
        request(&mut p, "m0", Some("Y"), "a", json!(2), 11);
        request(&mut p, "m0", None, "b", json!(3), 12);
        request(&mut p, "m0", None, "b", json!(4), 13);
        assert_eq!(paramgen(&mut p, exec(Some("Y"), "a", None)), Some(11));
        assert_eq!(
            paramgen(&mut p, exec(Some("Y"), "a", None)),
            Some(11),
            "a re-execution of Y"
        );
        assert_eq!(
            paramgen(&mut p, exec(None, "b", Some(&json!(4).into()))),
            Some(13),
            "equal arguments first"
        );
        assert_eq!(paramgen(&mut p, exec(None, "b", None)), Some(12));
        assert_eq!(paramgen(&mut p, exec(None, "b", None)), None);
        assert_eq!(
            paramgen(&mut p, exec(Some("Z"), "a", None)),
            Some(10),
            "unknown id: by order"
        );
    }

    #[test]
    fn the_requesting_span_decides_between_reused_ids() {
        let mut p = PendingCalls::default();
        request(&mut p, "m1", Some("X"), "a", json!(1), 10);
        request(&mut p, "m5", Some("X"), "a", json!(2), 20);
        let late = Execution {
            requested_by: Some("m5"),
            ..exec(Some("X"), "a", None)
        };
        assert_eq!(paramgen(&mut p, late), Some(20));
        let early = Execution {
            requested_by: Some("m1"),
            ..exec(Some("X"), "a", None)
        };
        assert_eq!(paramgen(&mut p, early), Some(10));
        let unknown = Execution {
            requested_by: Some("m9"),
            ..exec(Some("X"), "a", None)
        };
        assert_eq!(
            paramgen(&mut p, unknown),
            Some(20),
            "falls back to the id rules"
        );
    }

    #[test]
    fn final_answers_match_once() {
        let mut p = PendingCalls::default();
        p.request_final(Some("F".into()));
        assert!(p.execute_final(Some("F")));
        assert!(!p.execute_final(Some("F")));
        p.request_final(None);
        assert!(p.execute_final(None));
    }
}
