//! `suite.yaml` as `lint` shows it: every warning and error rendered as
//! the terminal would (a column past 65,535, a long glob, …).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    agenteval_gate_fuzz::limits();
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
