//! `<suite>.history.jsonl`: one line per update, a bad line is a located
//! error; committed lines are selected as readers do.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = Path::new("baselines/main/fuzz.history.jsonl");
    let Ok(text) = agenteval_gate::fsutil::text_from_bytes(data.to_vec()) else {
        return;
    };
    if let Ok(lines) = agenteval_gate::baseline::parse_history(path, &text) {
        let n = lines.len();
        assert!(agenteval_gate::baseline::committed_history(lines, None).len() <= n);
    }
});
