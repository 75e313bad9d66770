//! `<suite>.history.jsonl`: one line per update, a bad line is a located
//! error; committed lines are selected as readers do.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = Path::new("baselines/main/fuzz.history.jsonl");
    let text = match agenteval_gate::fsutil::text_from_bytes(data.to_vec()) {
        Ok(t) => t,
        Err(e) => {
            if let Some(d) = e.diagnostic(path) {
                agenteval_gate_fuzz::render_error(&d);
            }
            return;
        }
    };
    match agenteval_gate::baseline::parse_history(path, &text) {
        Ok(lines) => {
            let n = lines.len();
            assert!(agenteval_gate::baseline::committed_history(lines, None).len() <= n);
        }
        Err(e) => {
            agenteval_gate_fuzz::render_error(&e);
        }
    }
});
