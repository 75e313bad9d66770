//! Traces: the `SweAgent` adapter, whatever the input looks like.
#![no_main]

use agenteval_gate::trace::TraceFormat;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    agenteval_gate_fuzz::trace(Some(TraceFormat::SweAgent), data);
});
