//! A starter suite drafted from recorded traces (`init --from-trace`, issue 23 item 8): the
//! tool catalog with argument schemas inferred from every call seen, one case per trace, and
//! starter tier-2 checkpoints the user edits. The text is written so that it lints clean.
//!
//! Every name and text comes from the traces, so every scalar is written as a JSON string
//! (a valid YAML double-quoted scalar): no tool name or message can break the YAML.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::trace::{SpanKind, Trace};

/// One trace to draft from: the case id it becomes and the trace.
pub(crate) struct DraftTrace<'a> {
    pub id: String,
    pub trace: &'a Trace,
}

/// The drafted files: `suite.yaml` and `cases.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Draft {
    pub suite_yaml: String,
    pub cases_jsonl: String,
    /// Tools found, in name order.
    pub tools: Vec<String>,
}

/// A case id from a file name: letters, digits, `-`, `_` and `.` kept, anything else `-`.
pub(crate) fn case_id(stem: &str) -> String {
    let id: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect();
    let id = id.trim_matches(|c| c == '-' || c == '.').to_owned();
    if id.is_empty() { "case".to_owned() } else { id }
}

/// Per tool: the argument values of every call seen, and in how many traces it occurs.
#[derive(Default)]
struct Seen {
    args: Vec<Value>,
    traces: usize,
}

fn tools_of(traces: &[DraftTrace<'_>]) -> BTreeMap<String, Seen> {
    // Arguments of executed calls; those the model only requested count for tools that never
    // ran (the executed ones are what the tool received).
    let mut executed: BTreeMap<String, Seen> = BTreeMap::new();
    let mut requested: BTreeMap<String, Seen> = BTreeMap::new();
    for t in traces {
        let mut ran: BTreeSet<&str> = BTreeSet::new();
        let mut asked: BTreeSet<&str> = BTreeSet::new();
        for span in &t.trace.spans {
            if let (SpanKind::Tool, Some(tool)) = (span.kind, &span.tool) {
                let seen = executed.entry(tool.name.to_string()).or_default();
                seen.args
                    .extend(tool.arguments.as_ref().map(|a| a.value().into_owned()));
                ran.insert(&tool.name);
            }
            for call in span.output_messages.iter().flat_map(|m| &m.tool_calls) {
                let seen = requested.entry(call.name.to_string()).or_default();
                if !call.arguments.is_null() {
                    seen.args.push(call.arguments.value().into_owned());
                }
                asked.insert(&call.name);
            }
        }
        for name in ran {
            executed.entry(name.to_owned()).or_default().traces += 1;
        }
        for name in asked {
            requested.entry(name.to_owned()).or_default().traces += 1;
        }
    }
    for (name, seen) in requested {
        executed.entry(name).or_insert(seen);
    }
    executed
}

/// The JSON Schema type of `v`.
fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The schema of one property from its values: their type when they share one (`integer` and
/// `number` give `number`), else no constraint.
fn property_schema(values: &[&Value]) -> Value {
    let mut types: BTreeSet<&str> = values.iter().map(|v| type_of(v)).collect();
    if types.contains("number") {
        types.remove("integer");
    }
    match types.len() {
        1 => json!({"type": types.first().copied().unwrap_or("string")}),
        _ => json!({}),
    }
}

/// An object schema from the calls' arguments when every call passed an object: each key
/// seen, typed; required = the keys of every call. `None` otherwise (no constraint).
fn args_schema(args: &[Value]) -> Option<Value> {
    if args.is_empty() || !args.iter().all(Value::is_object) {
        return None;
    }
    let objects: Vec<&Map<String, Value>> = args.iter().filter_map(Value::as_object).collect();
    let keys: BTreeSet<&String> = objects.iter().flat_map(|o| o.keys()).collect();
    let mut properties = Map::new();
    let mut required = Vec::new();
    for key in keys {
        let values: Vec<&Value> = objects.iter().filter_map(|o| o.get(key)).collect();
        if values.len() == objects.len() {
            required.push(Value::String(key.clone()));
        }
        properties.insert(key.clone(), property_schema(&values));
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    schema.insert("properties".into(), Value::Object(properties));
    Some(Value::Object(schema))
}

/// The first user message of a trace, as the case's input.
fn first_user_message(trace: &Trace) -> Option<String> {
    trace
        .spans
        .iter()
        .flat_map(|s| &s.input_messages)
        .find(|m| m.role == "user" && !m.content.trim().is_empty())
        .map(|m| m.content.clone())
}

/// A JSON string: a YAML double-quoted scalar that nothing in it can break.
fn q(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

/// Draft the suite `name` from `traces` (their case ids unique).
pub(crate) fn draft_suite(name: &str, traces: &[DraftTrace<'_>]) -> Draft {
    let tools = tools_of(traces);
    let mut y = String::new();
    y.push_str("# Drafted by `agenteval-gate init --from-trace` from ");
    y.push_str(&traces.len().to_string());
    y.push_str(" recorded traces.\n# Edit it: describe the tools, tighten the schemas, write the rules your agent must\n# keep (docs/suites.md), then `agenteval-gate lint` and `baseline update`.\n");
    y.push_str(&format!("suite: {}\nspec_version: \"0.1.0\"\n", q(name)));
    y.push_str(&format!(
        "description: {}\n\ntraces: traces/\ncases:\n  - include: cases.jsonl\n\ntools:\n",
        q(&format!(
            "Drafted from {} traces; describe your agent here.",
            traces.len()
        ))
    ));
    if tools.is_empty() {
        y.pop();
        y.push_str(" []\n");
    }
    for (tool, seen) in &tools {
        y.push_str(&format!("  - name: {}\n", q(tool)));
        y.push_str(&format!(
            "    description: {}\n",
            q(&format!(
                "Seen in {} of {} traces ({} calls with arguments); describe it.",
                seen.traces,
                traces.len(),
                seen.args.len()
            ))
        ));
        if let Some(schema) = args_schema(&seen.args) {
            y.push_str(&format!("    schema: {schema}\n"));
        }
    }
    y.push_str("\ncheckpoints:\n");
    y.push_str("  - id: S2-01\n    tier: 2\n    instruction: \"No tool call fails\"\n    severity: medium\n    evidence_sources: [trace]\n    sequence: {count: {of: {kind: tool, status: error}, max: 0}}\n");
    // The tools every trace called: a starter "it is called" rule each (at most three). A
    // `tool:` matcher is a glob: a name with glob syntax in it gets no starter rule.
    let everywhere: Vec<&String> = tools
        .iter()
        .filter(|(_, s)| s.traces == traces.len() && !traces.is_empty())
        .filter(|(t, _)| !t.contains(['*', '?', '[', ']', '{', '}', '\\', '!']))
        .map(|(t, _)| t)
        .take(3)
        .collect();
    for (i, tool) in everywhere.iter().enumerate() {
        y.push_str(&format!(
            "  - id: S2-{:02}\n    tier: 2\n    instruction: {}\n    severity: low\n    evidence_sources: [trace]\n    sequence: {{eventually: {{tool: {}}}}}\n",
            i + 2,
            q(&format!("The agent calls `{tool}`")),
            q(tool)
        ));
    }
    let mut cases = String::new();
    for t in traces {
        let input = first_user_message(t.trace).unwrap_or_default();
        let line = json!({"id": t.id, "input": {"message": input}, "tags": ["drafted"]});
        cases.push_str(&line.to_string());
        cases.push('\n');
    }
    Draft {
        suite_yaml: y,
        cases_jsonl: cases,
        tools: tools.into_keys().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_type_each_key_and_require_the_keys_of_every_call() {
        let args = vec![
            json!({"n": 1, "s": "a", "mixed": 1}),
            json!({"n": 2.5, "s": "b", "mixed": "x", "opt": true}),
        ];
        assert_eq!(
            args_schema(&args),
            Some(json!({
                "type": "object",
                "required": ["mixed", "n", "s"],
                "properties": {
                    "mixed": {},
                    "n": {"type": "number"},
                    "opt": {"type": "boolean"},
                    "s": {"type": "string"}
                }
            }))
        );
        assert_eq!(args_schema(&[json!("bare"), json!({"a": 1})]), None);
        assert_eq!(args_schema(&[]), None);
    }

    #[test]
    fn case_ids_keep_safe_characters_only() {
        assert_eq!(case_id("t 1"), "t-1");
        assert_eq!(case_id("../x/y"), "x-y");
        assert_eq!(case_id("***"), "case");
        assert_eq!(case_id("LANGCHAIN_trace"), "LANGCHAIN_trace");
    }
}
