//! Saved run reports (`report`, `merge`, `baseline update --from-report`):
//! reading only (the renderers are `render_reports`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    agenteval_gate_fuzz::limits();
    let path = agenteval_gate_fuzz::file("run.json", data);
    let _ = agenteval_gate::report::read_run_report(&path);
});
