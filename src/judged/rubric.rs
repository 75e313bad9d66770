//! Rubric generation (Agentic CLEAR, issue 14 item 4): the judge drafts
//! task-specific tier-3 checkpoints from the suite's cases (inputs and
//! expected outcomes), written as a reviewable YAML file. A draft is never
//! applied: a person copies the items they keep into `suite.yaml`.
//!
//! - **Questions**: one per batch of [`CASES_PER_QUESTION`] cases (in suite
//!   order), each answering 1–[`MAX_ITEMS`] checkpoints as strict JSON;
//!   any other shape is a judge error and that batch drafts nothing.
//! - **IDs**: `R3-NN`, numbered past every id the suite or any of its
//!   baselines ever used, so a draft never reuses an id (IDs are immutable).
//! - **Severity**: at most `medium`. An unreviewed item must not be able to
//!   fail the gate at the default `fail_on: critical`/`high`; raise it after
//!   review.
//! - Items whose instruction repeats an earlier one (case and spacing
//!   ignored) are dropped.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::judged::answer::Request;
use crate::llm::error::JudgeError;
use crate::llm::prompts::{Prompts, fence};
use crate::spec::suite::Suite;

/// Cases shown to the judge per question.
pub(crate) const CASES_PER_QUESTION: usize = 40;
/// Most checkpoints one answer may draft.
pub(crate) const MAX_ITEMS: usize = 8;
/// Most partial criteria per drafted checkpoint.
pub(crate) const MAX_CRITERIA: usize = 3;
/// Longest instruction or condition accepted.
pub(crate) const MAX_TEXT_CHARS: usize = 300;
/// Characters of one case's input or expected outcome shown to the judge.
const CASE_CHARS: usize = 600;
/// Prefix of drafted ids.
pub(crate) const ID_PREFIX: &str = "R3-";

/// One drafted checkpoint, as the judge gave it (severity already capped).
#[derive(Debug, Clone, PartialEq)]
pub struct DraftItem {
    pub instruction: String,
    pub severity: &'static str,
    pub partial_criteria: Vec<(String, f64)>,
    pub rationale: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAnswer {
    checkpoints: Vec<RawItem>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawItem {
    instruction: String,
    severity: String,
    partial_criteria: Vec<RawCriterion>,
    rationale: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCriterion {
    condition: String,
    weight: f64,
}

/// The JSON Schema of an answer.
pub(crate) fn json_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["checkpoints"],
        "properties": {"checkpoints": {
            "type": "array", "minItems": 1, "maxItems": MAX_ITEMS,
            "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["instruction", "severity", "partial_criteria", "rationale"],
                "properties": {
                    "instruction": {"type": "string"},
                    "severity": {"type": "string", "enum": ["critical", "high", "medium", "low"]},
                    "partial_criteria": {"type": "array", "maxItems": MAX_CRITERIA, "items": {
                        "type": "object", "additionalProperties": false,
                        "required": ["condition", "weight"],
                        "properties": {"condition": {"type": "string"}, "weight": {"type": "number"}}
                    }},
                    "rationale": {"type": "string"}
                }
            }
        }}
    })
}

/// Parse an answer strictly; `body` is the JSON object.
pub(crate) fn parse(body: &str) -> Result<Vec<DraftItem>, String> {
    let raw: RawAnswer =
        serde_json::from_str(body).map_err(|e| format!("not the expected JSON object: {e}"))?;
    if raw.checkpoints.is_empty() || raw.checkpoints.len() > MAX_ITEMS {
        return Err(format!(
            "{} checkpoints drafted; 1 to {MAX_ITEMS} are expected",
            raw.checkpoints.len()
        ));
    }
    raw.checkpoints
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let n = i + 1;
            let instruction = one_line(&item.instruction);
            if instruction.is_empty() || instruction.chars().count() > MAX_TEXT_CHARS {
                return Err(format!(
                    "checkpoint {n}: the instruction must hold 1 to {MAX_TEXT_CHARS} characters"
                ));
            }
            let severity = match item.severity.as_str() {
                "critical" | "high" | "medium" => "medium",
                "low" => "low",
                other => {
                    return Err(format!(
                        "checkpoint {n}: severity `{other}` is not critical, high, medium or low"
                    ));
                }
            };
            if item.partial_criteria.len() > MAX_CRITERIA {
                return Err(format!(
                    "checkpoint {n}: {} partial criteria; at most {MAX_CRITERIA}",
                    item.partial_criteria.len()
                ));
            }
            let partial_criteria = item
                .partial_criteria
                .into_iter()
                .map(|c| {
                    let condition = one_line(&c.condition);
                    if condition.is_empty() || condition.chars().count() > MAX_TEXT_CHARS {
                        return Err(format!(
                            "checkpoint {n}: a partial criterion must hold 1 to {MAX_TEXT_CHARS} characters"
                        ));
                    }
                    if !(c.weight > 0.0 && c.weight < 1.0) {
                        return Err(format!(
                            "checkpoint {n}: partial weight {} is not strictly between 0 and 1",
                            c.weight
                        ));
                    }
                    Ok((condition, c.weight))
                })
                .collect::<Result<Vec<_>, String>>()?;
            Ok(DraftItem {
                instruction,
                severity,
                partial_criteria,
                rationale: crate::llm::prompts::cap_chars(&one_line(&item.rationale), 500),
            })
        })
        .collect()
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The questions for `suite`: one per batch of cases.
pub(crate) fn questions(suite: &Suite, prompts: &Prompts) -> Result<Vec<Request>, JudgeError> {
    let existing: Vec<Value> = suite
        .checkpoints
        .iter()
        .map(|c| json!({"id": c.id, "tier": c.tier, "instruction": c.instruction}))
        .collect();
    suite
        .cases
        .chunks(CASES_PER_QUESTION)
        .map(|batch| {
            let cases: Vec<String> = batch
                .iter()
                .map(|c| {
                    let expected = c.expected_output.as_ref().map_or_else(
                        || "(no expected output)".to_owned(),
                        |e| serde_json::to_string(e).unwrap_or_default(),
                    );
                    let tools = if c.expected_tools.is_empty() {
                        String::new()
                    } else {
                        format!("\nexpected tools: {}", c.expected_tools.join(", "))
                    };
                    format!(
                        "case {}\ninput: {}\nexpected: {}{tools}",
                        c.id,
                        crate::llm::prompts::cap_chars(&compact(&c.input), CASE_CHARS),
                        crate::llm::prompts::cap_chars(&expected, CASE_CHARS)
                    )
                })
                .collect();
            let ctx = json!({
                "suite": suite.name,
                "description": suite.description,
                "existing": existing,
                "max_items": MAX_ITEMS,
                "case_count": batch.len(),
                "cases": fence("cases", &cases.join("\n\n"), CASES_PER_QUESTION * CASE_CHARS * 3),
            });
            Ok(Request {
                prompt: prompts.prompt("rubric", &ctx)?,
                format: super::answer::AnswerFormat::Rubric,
                repeat: 0,
            })
        })
        .collect()
}

fn compact(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The first free `R3-NN` numbers past every id in `used`, and drafted items
/// without duplicates (instruction compared case- and space-insensitively,
/// also against the suite's own instructions).
pub(crate) fn assign_ids(
    items: Vec<DraftItem>,
    used: &BTreeSet<String>,
    existing_instructions: &[String],
) -> Vec<(String, DraftItem)> {
    let mut next = used
        .iter()
        .filter_map(|id| id.strip_prefix(ID_PREFIX)?.parse::<u32>().ok())
        .max()
        .unwrap_or(0)
        + 1;
    let mut seen: BTreeSet<String> = existing_instructions
        .iter()
        .map(|i| one_line(i).to_lowercase())
        .collect();
    let mut out = Vec::new();
    for item in items {
        if !seen.insert(item.instruction.to_lowercase()) {
            continue;
        }
        let mut id = format!("{ID_PREFIX}{next:02}");
        while used.contains(&id) {
            next += 1;
            id = format!("{ID_PREFIX}{next:02}");
        }
        next += 1;
        out.push((id, item));
    }
    out
}

/// The draft file: a header saying what it is and who drafted it, then the
/// items as suite checkpoints. Strings are written as JSON strings, which
/// YAML reads as double-quoted scalars, so no text can break the structure.
pub(crate) fn render_draft(suite: &str, drafted_by: &str, items: &[(String, DraftItem)]) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned());
    let mut y = String::new();
    let _ = writeln!(
        y,
        "# DRAFT tier-3 checkpoints for suite `{}`, drafted by {} from the cases' inputs and\n\
         # expected outcomes (`agenteval-gate rubric generate`). NOT applied: review every item,\n\
         # check it with `agenteval-gate rubric verify` against labelled cases, and copy the\n\
         # ones you keep under `checkpoints:` in suite.yaml. IDs are new to this suite and its\n\
         # baselines; keep them once adopted. Severities are capped at medium until reviewed.",
        one_line(suite).replace('`', "'"),
        one_line(drafted_by)
    );
    let _ = writeln!(y, "suite: {}", q(suite));
    let _ = writeln!(y, "drafted_by: {}", q(drafted_by));
    y.push_str("checkpoints:\n");
    for (id, item) in items {
        let _ = writeln!(y, "  - id: {}", q(id));
        y.push_str("    tier: 3\n");
        let _ = writeln!(y, "    instruction: {}", q(&item.instruction));
        let _ = writeln!(y, "    severity: {}", item.severity);
        y.push_str("    evidence_sources: [final_answer, trace]\n");
        if !item.partial_criteria.is_empty() {
            y.push_str("    partial_criteria:\n");
            for (c, w) in &item.partial_criteria {
                let _ = writeln!(y, "      - {{condition: {}, weight: {w}}}", q(c));
            }
        }
        let _ = writeln!(
            y,
            "    # why: {}",
            item.rationale.replace(['\n', '\r'], " ")
        );
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(instruction: &str) -> DraftItem {
        DraftItem {
            instruction: instruction.into(),
            severity: "medium",
            partial_criteria: vec![],
            rationale: String::new(),
        }
    }

    #[test]
    fn answers_parse_strictly_and_severity_is_capped() {
        let ok = r#"{"checkpoints": [{"instruction": " States  the\nbalance ", "severity": "critical",
            "partial_criteria": [{"condition": "balance only", "weight": 0.5}], "rationale": "r"}]}"#;
        let items = parse(ok).unwrap();
        assert_eq!(items[0].instruction, "States the balance");
        assert_eq!(items[0].severity, "medium");
        assert_eq!(
            items[0].partial_criteria,
            [("balance only".to_owned(), 0.5)]
        );
        for bad in [
            r#"{"checkpoints": []}"#,
            r#"{"checkpoints": [{"instruction": "", "severity": "low", "partial_criteria": [], "rationale": ""}]}"#,
            r#"{"checkpoints": [{"instruction": "x", "severity": "urgent", "partial_criteria": [], "rationale": ""}]}"#,
            r#"{"checkpoints": [{"instruction": "x", "severity": "low", "partial_criteria": [{"condition": "c", "weight": 1.0}], "rationale": ""}]}"#,
            r#"{"checkpoints": [{"instruction": "x", "severity": "low", "partial_criteria": [], "rationale": "", "id": "P1"}]}"#,
            r#"{"items": []}"#,
        ] {
            assert!(parse(bad).is_err(), "accepted {bad}");
        }
    }

    #[test]
    fn ids_are_new_and_duplicates_are_dropped() {
        let used: BTreeSet<String> = ["P3-01", "R3-01", "R3-07"].map(String::from).into();
        let got = assign_ids(
            vec![item("A"), item("a"), item("Existing rule"), item("B")],
            &used,
            &["existing   RULE".to_owned()],
        );
        let ids: Vec<&str> = got.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["R3-08", "R3-09"]);
        assert_eq!(got[1].1.instruction, "B");
    }

    #[test]
    fn the_draft_quotes_every_string() {
        let y = render_draft(
            "s",
            "judge:openai/m",
            &[(
                "R3-01".into(),
                DraftItem {
                    instruction: "say \"hi\": #1 [ok] {x}".into(),
                    severity: "low",
                    partial_criteria: vec![("c: d".into(), 0.5)],
                    rationale: "line\nbreak".into(),
                },
            )],
        );
        assert!(
            y.contains(r#"instruction: "say \"hi\": #1 [ok] {x}""#),
            "{y}"
        );
        assert!(y.contains(r#"{condition: "c: d", weight: 0.5}"#), "{y}");
        assert!(y.contains("# why: line break"), "{y}");
    }
}
