//! Traces as `trace` and the reports show them: format detection, then the
//! text, Mermaid and JSON views, or the error as the terminal renders it.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    agenteval_gate_fuzz::render_trace(data);
});
