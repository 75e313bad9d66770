//! `baselines/<name>/<suite>.json`: UTF-8 check, parsing, then the run
//! report inside through every renderer.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
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
