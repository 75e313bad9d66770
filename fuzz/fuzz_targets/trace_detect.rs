//! Traces: format detection and every adapter it picks.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    agenteval_gate_fuzz::trace(None, data);
});
