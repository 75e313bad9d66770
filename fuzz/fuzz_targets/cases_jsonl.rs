//! `cases.jsonl` included from a fixed suite: one case per line, a bad line
//! is a located error (rendered by `render_suite`).
#![no_main]

use libfuzzer_sys::fuzz_target;

const SUITE: &str = "suite: fuzz\nspec_version: \"1\"\ntools:\n  - name: lookup\ncheckpoints:\n  - {id: P1, tier: 2, instruction: look up first, severity: high, evidence_sources: [trace], sequence: {before: {tool: lookup}, then: {kind: llm, final: true}}}\ncases:\n  - include: cases.jsonl\n";

fuzz_target!(|data: &[u8]| {
    agenteval_gate_fuzz::limits();
    let path = agenteval_gate_fuzz::file("suite.yaml", SUITE.as_bytes());
    agenteval_gate_fuzz::file("cases.jsonl", data);
    let _ = agenteval_gate::spec::load_checked(&path);
});
