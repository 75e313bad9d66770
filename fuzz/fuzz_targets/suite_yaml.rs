//! `suite.yaml`: YAML parsing and validation (what `lint` reports); the
//! diagnostics are rendered by `render_suite`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    agenteval_gate_fuzz::limits();
    let path = agenteval_gate_fuzz::file("suite.yaml", data);
    let _ = agenteval_gate::spec::load_checked(&path);
});
