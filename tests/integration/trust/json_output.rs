//! Issue 22, item 5, through the binary: machine formats are escaped by
//! their own rules and never by the terminal escaper. Any string in any
//! field of a trace comes back, exactly, from `trace --format json` and from
//! a run's JSON report read by a JSON parser; Mermaid, Markdown, `JUnit` and
//! HTML hold no raw control character or bidi override; the human text
//! still shows them as visible escapes.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

use crate::common::{bin, outputs, repo};

/// A control character, bidi override or line separator (what the terminal
/// escaper makes visible), other than the line breaks and tabs a document
/// may hold.
fn unsafe_char(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Three trace formats: a tau-bench episode, a Who&When chat log and an
/// `OTel` `GenAI` span export (any-agent).
fn traces() -> [PathBuf; 3] {
    [
        repo().join("suites/airline-tau/traces/task-1.json"),
        repo().join("tests/fixtures/traces/who-and-when/hand-crafted_1.json"),
        repo().join("tests/fixtures/traces/otel-genai-any-agent/OPENAI_trace.json"),
    ]
}

/// JSON pointers of every string in `v` (values, not keys).
fn string_fields(v: &serde_json::Value, at: &str, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(_) => out.push(at.to_owned()),
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                string_fields(x, &format!("{at}/{i}"), out);
            }
        }
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                let k = k.replace('~', "~0").replace('/', "~1");
                string_fields(x, &format!("{at}/{k}"), out);
            }
        }
        _ => {}
    }
}

/// Every string of `v`, keys included.
fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                out.push(k.clone());
                strings(x, out);
            }
        }
        _ => {}
    }
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `trace FILE --format FORMAT`: exit code and stdout.
fn trace(file: &Path, format: &str) -> (Option<i32>, String) {
    let out = bin()
        .arg("trace")
        .arg(file)
        .args(["--format", format])
        .output()
        .unwrap();
    let (stdout, _) = outputs(&out);
    (out.status.code(), stdout)
}

/// `v` with the string at `field` set to `s`, written to `dir/name`.
fn with_string(v: &serde_json::Value, field: &str, s: &str, dir: &Path, name: &str) -> PathBuf {
    let mut v = v.clone();
    *v.pointer_mut(field).unwrap() = serde_json::Value::String(s.to_owned());
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
    path
}

/// Parse `stdout` as JSON, failing the property with the text when it is not.
fn parse(stdout: &str, what: &str) -> Result<serde_json::Value, TestCaseError> {
    serde_json::from_str(stdout)
        .map_err(|e| TestCaseError::fail(format!("{what}: invalid JSON ({e}):\n{stdout}")))
}

#[test]
fn a_bidi_mark_in_a_message_is_json_in_json_and_visible_in_text() {
    // Who&When Algorithm-Generated/33.json carries a U+200E in a message:
    // `trace --format json` wrote it as `\u{200e}`, which is no JSON escape.
    let src = repo().join("tests/fixtures/traces/who-and-when/algorithm-generated_100.json");
    let mut v = read_json(&src);
    let hostile = "Preferred source\u{200e} \u{202e}evil\u{1b}[31m ##[error]x \u{9b}2J";
    v["history"][1]["content"] = serde_json::Value::String(hostile.to_owned());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.json");
    std::fs::write(&file, serde_json::to_string(&v).unwrap()).unwrap();

    let (code, json) = trace(&file, "json");
    assert_eq!(code, Some(0), "{json}");
    assert!(!json.contains("\\u{"), "terminal escapes in JSON:\n{json}");
    assert!(!json.chars().any(unsafe_char), "a raw control character");
    assert!(!json.contains("##["), "a workflow command");
    let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
    let mut all = Vec::new();
    strings(&parsed, &mut all);
    assert!(all.iter().any(|s| s.contains(hostile)), "the exact string");

    // The human text keeps the terminal guard.
    let (code, text) = trace(&file, "text");
    assert_eq!(code, Some(0));
    assert!(text.contains("\\u{200e}") || !text.contains("Preferred source"));
    assert!(!text.chars().any(unsafe_char), "{text}");

    let (code, mermaid) = trace(&file, "mermaid");
    assert_eq!(code, Some(0));
    assert!(!mermaid.chars().any(unsafe_char), "{mermaid}");
}

/// A one-case copy of the airline-tau suite (task-1), its trace replaced by `trace`.
fn one_case_suite(dir: &Path, trace: &serde_json::Value) {
    let suite = dir.join("airline-tau");
    std::fs::create_dir_all(suite.join("traces")).unwrap();
    std::fs::create_dir_all(suite.join("evidence")).unwrap();
    let src = repo().join("suites/airline-tau");
    let yaml = std::fs::read_to_string(src.join("suite.yaml"))
        .unwrap()
        .replace("min_cases: 5", "min_cases: 2");
    std::fs::write(suite.join("suite.yaml"), yaml).unwrap();
    let case = std::fs::read_to_string(src.join("cases.jsonl"))
        .unwrap()
        .lines()
        .find(|l| l.contains("\"task-1\""))
        .unwrap()
        .to_owned();
    std::fs::write(suite.join("cases.jsonl"), case + "\n").unwrap();
    std::fs::copy(
        src.join("evidence/task-1.json"),
        suite.join("evidence/task-1.json"),
    )
    .unwrap();
    std::fs::write(
        suite.join("traces/task-1.json"),
        serde_json::to_string(trace).unwrap(),
    )
    .unwrap();
}

/// `run --format F` on the one-case suite: stdout.
fn run(dir: &Path, format: &str) -> Result<String, TestCaseError> {
    let out = bin()
        .args(["--quiet", "run", "--deterministic", "--suites-dir"])
        .arg(dir)
        .args(["--suite", "airline-tau", "--format", format])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    prop_assert!(
        matches!(out.status.code(), Some(0 | 2)),
        "run exit {:?}: {}",
        out.status.code(),
        stderr
    );
    Ok(stdout)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Any string in any string field of a trace: `trace --format json`
    /// always parses, holds no raw control character or bidi override, and
    /// where a marker in that field shows up in the output, the string shows
    /// up exactly (framed by `x` so that it is never JSON itself and
    /// trimming does not touch it).
    #[test]
    fn any_string_in_any_trace_field_round_trips_through_trace_json(
        which in 0usize..3,
        pick in any::<prop::sample::Index>(),
        s in "\\PC{0,16}|[\\x00-\\x1f\\x7f-\\x9f\\u{200e}\\u{202a}-\\u{202e}\\u{2066}-\\u{2069}\\u{2028}\"\\\\#\\[:]{1,16}|##\\[error\\]x|::error::x",
    ) {
        let src = &traces()[which];
        let base = read_json(src);
        let mut fields = Vec::new();
        string_fields(&base, "", &mut fields);
        let field = &fields[pick.index(fields.len())];
        let dir = tempfile::tempdir().unwrap();
        let marker = "xQZMARKERx";
        let value = format!("x{s}x");
        let plain = with_string(&base, field, marker, dir.path(), "plain.json");
        let data = with_string(&base, field, &value, dir.path(), "data.json");
        let (plain_code, plain_out) = trace(&plain, "json");
        let (code, out) = trace(&data, "json");
        // A field the adapter validates (an id, a timestamp) may reject both.
        if code != Some(0) {
            prop_assert_ne!(plain_code, Some(0), "only the string {:?} at {} was rejected", value, field);
            return Ok(());
        }
        let parsed = parse(&out, field)?;
        prop_assert!(!out.chars().any(unsafe_char), "raw control character at {}", field);
        prop_assert!(!out.contains("##["), "workflow command at {}", field);
        let mut plain_strings = Vec::new();
        strings(&parse(&plain_out, field)?, &mut plain_strings);
        if plain_strings.iter().any(|p| p.contains(marker)) {
            let mut all = Vec::new();
            strings(&parsed, &mut all);
            prop_assert!(all.iter().any(|o| o.contains(&value)), "{:?} at {} not in the output", value, field);
        }
    }

    /// Any string in a tau-bench episode's turns: a run's JSON report
    /// parses, and it, JUnit and Markdown hold no raw control character or
    /// bidi override.
    #[test]
    fn any_string_in_a_trace_survives_the_run_report(
        pick in any::<prop::sample::Index>(),
        s in "\\PC{0,12}|[\\x00-\\x1f\\x7f-\\x9f\\u{200e}\\u{202e}\\u{2028}\"\\\\#\\[:<>&`|]{1,12}",
    ) {
        let base = read_json(&repo().join("suites/airline-tau/traces/task-1.json"));
        let mut fields = Vec::new();
        string_fields(&base, "", &mut fields);
        let fields: Vec<&String> = fields.iter().filter(|f| f.starts_with("/traj/")).collect();
        let field = fields[pick.index(fields.len())];
        let mut v = base.clone();
        *v.pointer_mut(field).unwrap() = serde_json::Value::String(format!("x{s}x"));
        let dir = tempfile::tempdir().unwrap();
        one_case_suite(dir.path(), &v);
        let json = run(dir.path(), "json")?;
        let report = parse(&json, field)?;
        prop_assert_eq!(&report["cases"][0]["id"], "task-1");
        prop_assert!(!json.chars().any(unsafe_char), "raw control character at {}", field);
        for format in ["junit", "markdown"] {
            let doc = run(dir.path(), format)?;
            prop_assert!(!doc.chars().any(unsafe_char), "{}: raw control character at {}", format, field);
        }
    }
}
