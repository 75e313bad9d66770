//! Saved reports and baselines through every renderer: the input is read
//! as a run report, a compare report and a baseline; what parses is
//! rendered (table, Markdown, `JUnit`, JSON, the PR comment as posted) and
//! every error is rendered as the terminal would.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    agenteval_gate_fuzz::limits();
    let path = agenteval_gate_fuzz::file("report.json", data);
    match agenteval_gate::report::read_run_report(&path) {
        Ok(report) => agenteval_gate_fuzz::run_renderers(&report),
        Err(e) => {
            agenteval_gate_fuzz::render_error(&e);
        }
    }
    match agenteval_gate::report::read_compare_report(&path) {
        Ok(report) => agenteval_gate_fuzz::compare_renderers(&report),
        Err(e) => {
            agenteval_gate_fuzz::render_error(&e);
        }
    }
    let path = Path::new("baselines/main/fuzz.json");
    let text = match agenteval_gate::fsutil::text_from_bytes(data.to_vec()) {
        Ok(t) => t,
        Err(e) => {
            if let Some(d) = e.diagnostic(path) {
                agenteval_gate_fuzz::render_error(&d);
            }
            return;
        }
    };
    match agenteval_gate::baseline::parse_baseline(path, text) {
        Ok(file) => agenteval_gate_fuzz::run_renderers(&file.report),
        Err(e) => {
            agenteval_gate_fuzz::render_error(&e);
        }
    }
});
