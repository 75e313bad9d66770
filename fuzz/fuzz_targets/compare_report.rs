//! Saved compare reports (`comment --report`, `report`): reading only (the
//! comment, table and `JUnit` are `render_reports`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    agenteval_gate_fuzz::limits();
    let path = agenteval_gate_fuzz::file("compare.json", data);
    let _ = agenteval_gate::report::read_compare_report(&path);
});
