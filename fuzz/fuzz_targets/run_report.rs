//! Saved run reports (`report`, `merge`, `baseline update --from-report`):
//! reading, then the table, Markdown, `JUnit` and JSON renderers.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = agenteval_gate_fuzz::file("run.json", data);
    match agenteval_gate::report::read_run_report(&path) {
        Ok(report) => agenteval_gate_fuzz::run_renderers(&report),
        Err(e) => {
            agenteval_gate_fuzz::render_error(&e);
        }
    }
});
