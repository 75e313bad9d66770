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
        crate::output::write_document_streamed(|out| crate::output::write_json(out, &document))?;
        // The process ends after this document: the last batches are left
        // to the OS instead of being freed one allocation at a time.
        let evaluations = document.evaluations.into_inner();
        std::mem::forget(evaluations.current);
        std::mem::forget(evaluations.written);
        Ok(())
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
