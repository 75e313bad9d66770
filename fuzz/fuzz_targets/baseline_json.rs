//! `baselines/<name>/<suite>.json`: UTF-8 check and parsing (its run
//! report's renderers are `render_reports`).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = Path::new("baselines/main/fuzz.json");
    if let Ok(text) = agenteval_gate::fsutil::text_from_bytes(data.to_vec()) {
        let _ = agenteval_gate::baseline::parse_baseline(path, text);
    }
});
