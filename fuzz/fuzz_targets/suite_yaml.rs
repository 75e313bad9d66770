//! `suite.yaml`: YAML parsing, validation (what `lint` reports) and the
//! rendering of every diagnostic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = agenteval_gate_fuzz::file("suite.yaml", data);
    match agenteval_gate::spec::load_checked(&path) {
        Ok(checked) => {
            for w in &checked.warnings {
                agenteval_gate_fuzz::render_error(w);
            }
        }
        Err(e) => {
            agenteval_gate_fuzz::render_error(&e);
        }
    }
});
