//! `trace --format json`: the spans and DAG of every trace in a file,
//! written as one document while a second thread evaluates the traces.
//!
//! The evaluating thread runs ahead of the writer in batches of traces
//! (a batch ends once it holds [`BATCH_SPANS`] spans), so a trace's DAG is
//! built while its spans, or the traces before it, are written. Batches go
//! back to that thread to be freed where they were allocated: a hand-off
//! per trace, or frees across threads, cost more than the overlap saved
//! on a file of 2,000 small traces. At most four batches are alive (one
//! being evaluated, one waiting, one being written, one on its way back),
//! so the DAGs of a large file are never all in memory (issue 22/25).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, Sender, channel, sync_channel};

use serde::Serialize;
use serde::ser::{Error as _, SerializeSeq as _, SerializeStruct as _};

use crate::app::error::Result;
use crate::eval::steps::StepEvaluation;
use crate::trace::Trace;

/// Spans per batch of evaluations handed to the writer.
const BATCH_SPANS: usize = 4096;

/// Write `traces` as `trace --format json` to standard output.
pub(super) fn write(
    traces: &[Trace],
    evaluate: &(impl Fn(&Trace) -> StepEvaluation + Sync),
) -> Result<()> {
    with_document(traces, evaluate, |document| {
        crate::output::write_document_streamed(|out| crate::output::write_json(out, document))?;
        Ok(())
    })
}

/// Run `write` on the document of `traces` while a second thread
/// evaluates them.
fn with_document<T>(
    traces: &[Trace],
    evaluate: &(impl Fn(&Trace) -> StepEvaluation + Sync),
    write: impl FnOnce(&Document<'_>) -> T,
) -> T {
    std::thread::scope(|scope| {
        let (ready, ready_rx) = sync_channel(1);
        let (used, used_rx) = channel::<Vec<StepEvaluation>>();
        scope.spawn(move || {
            let mut batch = Vec::new();
            let mut spans = 0;
            for trace in traces {
                batch.push(evaluate(trace));
                spans += trace.spans.len();
                if spans >= BATCH_SPANS {
                    spans = 0;
                    // An error: the writer stopped and waits for nothing.
                    if ready.send(std::mem::take(&mut batch)).is_err() {
                        return;
                    }
                    used_rx.try_iter().for_each(drop);
                }
            }
            if !batch.is_empty() {
                let _stopped = ready.send(batch);
            }
        });
        let document = Document {
            traces,
            evaluations: RefCell::new(Evaluations {
                ready: ready_rx,
                used,
                current: VecDeque::new(),
                written: Vec::new(),
            }),
        };
        let written = write(&document);
        // The process ends after this document: the last batches are left
        // to the OS instead of being freed one allocation at a time.
        let evaluations = document.evaluations.into_inner();
        std::mem::forget(evaluations.current);
        std::mem::forget(evaluations.written);
        written
    })
}

/// The writer's end of the evaluating thread.
struct Evaluations {
    ready: Receiver<Vec<StepEvaluation>>,
    used: Sender<Vec<StepEvaluation>>,
    current: VecDeque<StepEvaluation>,
    written: Vec<StepEvaluation>,
}

impl Evaluations {
    /// The next trace's evaluation; `None` when the evaluating thread
    /// ended without it (it panicked, and the scope reports that).
    fn next(&mut self) -> Option<StepEvaluation> {
        if self.current.is_empty() {
            let batch = self.ready.recv().ok()?;
            let written = std::mem::take(&mut self.written);
            if let Err(back) = self.used.send(written) {
                // The thread is done: what it would have freed is left.
                std::mem::forget(back.0);
            }
            self.current = batch.into();
        }
        self.current.pop_front()
    }
}

/// The JSON document: the object of a file's one trace, or the array of
/// several.
struct Document<'a> {
    traces: &'a [Trace],
    evaluations: RefCell<Evaluations>,
}

impl Serialize for Document<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let one = |trace| TraceJson {
            trace,
            evaluations: &self.evaluations,
        };
        if let [trace] = self.traces {
            return one(trace).serialize(serializer);
        }
        let mut seq = serializer.serialize_seq(Some(self.traces.len()))?;
        for trace in self.traces {
            seq.serialize_element(&one(trace))?;
        }
        seq.end()
    }
}

/// One trace: its spans, then its DAG.
struct TraceJson<'a> {
    trace: &'a Trace,
    evaluations: &'a RefCell<Evaluations>,
}

impl Serialize for TraceJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut object = serializer.serialize_struct("TraceJson", 2)?;
        object.serialize_field("trace", self.trace)?;
        let evaluation = self
            .evaluations
            .borrow_mut()
            .next()
            .ok_or_else(|| S::Error::custom("the evaluation of this trace did not finish"))?;
        object.serialize_field("dag", &evaluation.view())?;
        self.evaluations.borrow_mut().written.push(evaluation);
        object.end()
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;
    use std::path::Path;

    use super::*;
    use crate::dag::DagView;
    use crate::eval::steps::{RulesScorer, StepContext, StepSettings, ToolCatalog, evaluate_steps};

    /// `traces` `OTel` SDK traces, the `t`-th of `spans + 2t` spans (each
    /// DAG differs): a model call and a tool call in turn under one agent.
    fn sdk_traces(traces: usize, spans: usize) -> Vec<Trace> {
        let mut text = String::new();
        for t in 0..traces {
            for i in 0..spans + 2 * t {
                let (name, attributes) = match i {
                    0 => (
                        "agent.run",
                        r#"{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "bot"}"#,
                    ),
                    _ if i % 2 == 1 => ("chat", r#"{"gen_ai.operation.name": "chat"}"#),
                    _ => (
                        "lookup",
                        r#"{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup"}"#,
                    ),
                };
                let parent = if i == 0 {
                    "null".to_owned()
                } else {
                    "\"0x1\"".to_owned()
                };
                writeln!(
                    text,
                    r#"{{"name": "{name}", "context": {{"trace_id": "0x{t:x}", "span_id": "0x{:x}"}}, "parent_id": {parent}, "start_time": {}, "end_time": {}, "attributes": {attributes}}}"#,
                    i + 1,
                    1_000 * i,
                    1_000 * i + 900
                )
                .unwrap();
            }
        }
        crate::trace::parse_traces(text.as_bytes(), Path::new("t.jsonl")).unwrap()
    }

    /// The document as it was written before the second thread: each
    /// trace evaluated, then written with its DAG.
    fn sequential(traces: &[Trace], evaluate: &impl Fn(&Trace) -> StepEvaluation) -> String {
        #[derive(Serialize)]
        struct Plain<'a> {
            trace: &'a Trace,
            dag: DagView<'a>,
        }
        let evaluations: Vec<StepEvaluation> = traces.iter().map(evaluate).collect();
        let plain: Vec<Plain<'_>> = traces
            .iter()
            .zip(&evaluations)
            .map(|(trace, e)| Plain {
                trace,
                dag: e.view(),
            })
            .collect();
        match plain.as_slice() {
            [one] => crate::output::to_json(one),
            all => crate::output::to_json(&all),
        }
    }

    /// Ids, names and agents of spans, DAG nodes and step results are kept
    /// inside their structs, not as heap strings of their own: the
    /// allocations that made up most of a trace's memory (issue 22 item 7).
    #[test]
    fn short_ids_names_and_agents_take_no_allocation() {
        let catalog = ToolCatalog::new(&[]).unwrap();
        let settings = StepSettings::default();
        let traces = sdk_traces(1, 40);
        let evaluation = evaluate_steps(
            &traces[0],
            &StepContext::new(&catalog, &settings, &RulesScorer),
        );
        let mut texts: Vec<&crate::model::ShortText> = Vec::new();
        for span in &traces[0].spans {
            texts.extend([&span.id, &span.name]);
            texts.extend(span.parent.iter().chain(&span.agent));
        }
        for node in &evaluation.graph.nodes {
            texts.extend([&node.id, &node.name]);
            texts.extend(node.agent.iter().chain(&node.span_id));
        }
        let steps = evaluation.steps();
        for step in &steps {
            texts.extend([&step.id, &step.name]);
            texts.extend(step.span_id.iter().chain(&step.agent));
        }
        assert!(texts.len() > 200, "{} texts", texts.len());
        let on_heap: Vec<&str> = texts
            .iter()
            .filter(|t| t.is_heap_allocated())
            .map(|t| t.as_str())
            .collect();
        assert!(on_heap.is_empty(), "{on_heap:?}");
    }

    /// One trace, and several across more than one batch (the last batch
    /// short): byte for byte the sequential document, traces in order.
    #[test]
    fn the_document_is_the_sequential_one_whatever_the_batches() {
        let catalog = ToolCatalog::new(&[]).unwrap();
        let settings = StepSettings::default();
        let evaluate =
            |t: &Trace| evaluate_steps(t, &StepContext::new(&catalog, &settings, &RulesScorer));
        for (count, spans) in [(1, 40), (7, BATCH_SPANS / 3 + 1)] {
            let traces = sdk_traces(count, spans);
            assert_eq!(traces.len(), count);
            let written = with_document(&traces, &evaluate, |document| {
                let mut out = Vec::new();
                crate::output::write_json(&mut out, document).unwrap();
                String::from_utf8(out).unwrap()
            });
            assert_eq!(written, sequential(&traces, &evaluate), "{count} traces");
        }
    }
}
