//! Tool calls models requested, waiting for the spans that execute them.
//!
//! An execution is matched to a request by call id — ids may repeat, so the
//! oldest unexecuted request with that id wins, and an id whose request
//! already ran (same tool) is a re-execution of it — else by order among
//! unexecuted requests of the same tool, preferring the same agent and equal
//! arguments. Final-answer requests are kept apart: their execution adds no
//! node, the SYNTH was made from the request.

use serde_json::Value;

/// A tool call a model requested.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    pub(crate) agent: String,
    pub(crate) call_id: Option<String>,
    pub(crate) tool: String,
    pub(crate) args: Value,
    /// Its PARAMGEN node.
    pub(crate) paramgen: usize,
    executed: bool,
}

#[derive(Debug, Default)]
pub(crate) struct PendingCalls {
    calls: Vec<Pending>,
    /// Final-answer requests: (call id, already executed).
    finals: Vec<(Option<String>, bool)>,
}

impl PendingCalls {
    pub(crate) fn request(
        &mut self,
        agent: &str,
        call_id: Option<String>,
        tool: &str,
        args: Value,
        paramgen: usize,
    ) {
        self.calls.push(Pending {
            agent: agent.to_owned(),
            call_id,
            tool: tool.to_owned(),
            args,
            paramgen,
            executed: false,
        });
    }

    pub(crate) fn request_final(&mut self, call_id: Option<String>) {
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
    pub(crate) fn execute(
        &mut self,
        agent: &str,
        call_id: Option<&str>,
        tool: &str,
        args: Option<&Value>,
    ) -> Option<&Pending> {
        let k = self.find(agent, call_id, tool, args)?;
        self.calls[k].executed = true;
        Some(&self.calls[k])
    }

    fn find(
        &self,
        agent: &str,
        call_id: Option<&str>,
        tool: &str,
        args: Option<&Value>,
    ) -> Option<usize> {
        if let Some(id) = call_id {
            let same_id = |p: &Pending| p.call_id.as_deref() == Some(id);
            if let Some(k) = self.calls.iter().position(|p| !p.executed && same_id(p)) {
                return Some(k);
            }
            if let Some(k) = self
                .calls
                .iter()
                .rposition(|p| same_id(p) && p.tool == tool)
            {
                return Some(k);
            }
        }
        let rank = |p: &Pending| (p.agent != agent, args.is_some_and(|a| *a != p.args));
        self.calls
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.executed && p.tool == tool)
            .min_by_key(|(k, p)| (rank(p), *k))
            .map(|(k, _)| k)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn ids_first_then_reexecution_then_order() {
        let mut p = PendingCalls::default();
        p.request("", Some("X".into()), "a", json!(1), 10);
        p.request("", Some("Y".into()), "a", json!(2), 11);
        p.request("", None, "b", json!(3), 12);
        p.request("", None, "b", json!(4), 13);
        assert_eq!(
            p.execute("", Some("Y"), "a", None).map(|c| c.paramgen),
            Some(11)
        );
        assert_eq!(
            p.execute("", Some("Y"), "a", None).map(|c| c.paramgen),
            Some(11),
            "a re-execution of Y"
        );
        assert_eq!(
            p.execute("", None, "b", Some(&json!(4)))
                .map(|c| c.paramgen),
            Some(13),
            "equal arguments first"
        );
        assert_eq!(p.execute("", None, "b", None).map(|c| c.paramgen), Some(12));
        assert_eq!(p.execute("", None, "b", None).map(|c| c.paramgen), None);
        assert_eq!(
            p.execute("", Some("Z"), "a", None).map(|c| c.paramgen),
            Some(10),
            "unknown id: by order"
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
