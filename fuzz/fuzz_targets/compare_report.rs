//! Saved compare reports (`comment --report`, `report`): reading, then the
//! PR comment (checked: no marker, no workflow command from data), the
//! table and `JUnit`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = agenteval_gate_fuzz::file("compare.json", data);
    match agenteval_gate::report::read_compare_report(&path) {
        Ok(report) => agenteval_gate_fuzz::compare_renderers(&report),
        Err(e) => {
            agenteval_gate_fuzz::render_error(&e);
        }
    }
});
