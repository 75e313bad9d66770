//! Agent GPA trace judges (issue 14 item 1): seven dimensions of a whole
//! run, each scored 0–3 with a rationale and the span ids it rests on.
//!
//! **One judge call per case** answers all seven dimensions (the judge reads
//! the trace once; seven calls would send the same excerpt seven times). The
//! answer is one JSON object with every dimension and nothing else; a missing
//! or extra dimension, a score that is not a whole number from 0 to 3, or any
//! other shape is a judge error: the call fails, is not cached, and every
//! dimension of the case is N/A `judge_error` (counted, never a pass).
//! Citations are checked against the trace's span ids afterwards: a cited id
//! that is not in the trace is flagged on the dimension and counted in the
//! report's `judge.invalid_citations`; the score stands.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::answer::NOTES_CHARS;
use super::excerpt::trace_excerpt;
use crate::judged::answer::Request;
use crate::llm::error::JudgeError;
use crate::llm::prompts::{Prompts, cap_chars, fence};
use crate::model::trace_judges::TraceJudgeScore;

/// The name of the trace judge in suites and flags (`trace_judges: [gpa]`).
pub(crate) const GPA: &str = "gpa";
/// Judge calls GPA makes per case.
pub(crate) const CALLS_PER_CASE: u64 = 1;
/// Highest score of a dimension.
pub(crate) const MAX_SCORE: u8 = 3;

pub(crate) use crate::model::trace_judges::GPA_DIMENSIONS as DIMENSIONS;

/// One dimension as the judge scored it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DimensionScore {
    pub dimension: String,
    pub score: u8,
    pub rationale: String,
    pub cited_spans: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDimension {
    score: Value,
    rationale: String,
    cited_spans: Vec<String>,
}

/// The JSON Schema of a GPA answer (sent as structured output where supported).
pub(crate) fn json_schema() -> Value {
    let dim = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["score", "rationale", "cited_spans"],
        "properties": {
            "score": {"type": "integer", "minimum": 0, "maximum": MAX_SCORE},
            "rationale": {"type": "string"},
            "cited_spans": {"type": "array", "items": {"type": "string"}}
        }
    });
    let props: Map<String, Value> = DIMENSIONS
        .iter()
        .map(|(d, _)| ((*d).to_owned(), dim.clone()))
        .collect();
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": DIMENSIONS.iter().map(|(d, _)| *d).collect::<Vec<_>>(),
        "properties": props,
    })
}

/// Parse a GPA answer strictly (see the module docs); `body` is the JSON object.
pub(crate) fn parse(body: &str) -> Result<Vec<DimensionScore>, String> {
    let raw: BTreeMap<String, Value> =
        serde_json::from_str(body).map_err(|e| format!("not the expected JSON object: {e}"))?;
    let known: BTreeSet<&str> = DIMENSIONS.iter().map(|(d, _)| *d).collect();
    if let Some(extra) = raw.keys().find(|k| !known.contains(k.as_str())) {
        return Err(format!("`{extra}` is not a GPA dimension"));
    }
    let mut out = Vec::with_capacity(DIMENSIONS.len());
    for (dim, _) in DIMENSIONS {
        let value = raw
            .get(dim)
            .ok_or_else(|| format!("dimension `{dim}` is missing"))?;
        let d: RawDimension =
            serde_json::from_value(value.clone()).map_err(|e| format!("dimension `{dim}`: {e}"))?;
        let score = match &d.score {
            Value::Number(n) => n
                .as_u64()
                .filter(|s| *s <= u64::from(MAX_SCORE))
                .and_then(|s| u8::try_from(s).ok())
                .ok_or_else(|| {
                    format!("dimension `{dim}`: score {n} is not a whole number from 0 to 3")
                })?,
            other => {
                return Err(format!(
                    "dimension `{dim}`: score {other} is not a whole number from 0 to 3"
                ));
            }
        };
        let mut cited: Vec<String> = d
            .cited_spans
            .into_iter()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect();
        cited.sort();
        cited.dedup();
        out.push(DimensionScore {
            dimension: dim.to_owned(),
            score,
            rationale: cap_chars(d.rationale.trim(), NOTES_CHARS),
            cited_spans: cited,
        });
    }
    Ok(out)
}

/// The GPA question about one case.
pub(crate) fn question(
    prompts: &Prompts,
    case_input: &str,
    trace: &crate::trace::model::Trace,
    excerpt_chars: usize,
    final_answer: Option<&str>,
) -> Result<Request, JudgeError> {
    let dimensions: Vec<Value> = DIMENSIONS
        .iter()
        .map(|(d, q)| json!({"name": d, "question": q}))
        .collect();
    let ctx = json!({
        "dimensions": dimensions,
        "case_input": case_input,
        "span_count": trace.spans.len(),
        "trace": fence("trace", &trace_excerpt(trace, excerpt_chars), excerpt_chars + 200),
        "final_answer": fence(
            "final_answer",
            final_answer.unwrap_or("(the run produced no final answer)"),
            4_000,
        ),
    });
    Ok(Request {
        prompt: prompts.prompt("gpa", &ctx)?,
        format: super::answer::AnswerFormat::Gpa,
        repeat: 0,
    })
}

/// The report entries of one case from its answer, citations checked
/// against `span_ids`; the second value counts invalid citations.
pub(crate) fn scored(
    answer: &[DimensionScore],
    span_ids: &BTreeSet<String>,
    by: &str,
) -> (Vec<TraceJudgeScore>, u64) {
    let mut invalid_total = 0;
    let out = answer
        .iter()
        .map(|d| {
            let invalid: Vec<String> = d
                .cited_spans
                .iter()
                .filter(|s| !span_ids.contains(*s))
                .cloned()
                .collect();
            invalid_total += invalid.len() as u64;
            TraceJudgeScore {
                judge: GPA.to_owned(),
                dimension: d.dimension.clone(),
                score: Some(f64::from(d.score)),
                max: f64::from(MAX_SCORE),
                rationale: d.rationale.clone(),
                cited_spans: d.cited_spans.clone(),
                invalid_citations: invalid,
                evaluated_by: by.to_owned(),
                na_reason: None,
            }
        })
        .collect();
    (out, invalid_total)
}

/// Every dimension N/A for `reason` (no judge, judge error, not in cache, budget).
pub(crate) fn not_available(reason: &str) -> Vec<TraceJudgeScore> {
    DIMENSIONS
        .iter()
        .map(|(d, _)| TraceJudgeScore {
            judge: GPA.to_owned(),
            dimension: (*d).to_owned(),
            score: None,
            max: f64::from(MAX_SCORE),
            rationale: String::new(),
            cited_spans: Vec::new(),
            invalid_citations: Vec::new(),
            evaluated_by: "none".to_owned(),
            na_reason: Some(reason.to_owned()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(overrides: &[(&str, Value)]) -> String {
        let mut m = Map::new();
        for (d, _) in DIMENSIONS {
            m.insert(
                d.to_owned(),
                json!({"score": 2, "rationale": format!("{d} ok"), "cited_spans": ["s1"]}),
            );
        }
        for (k, v) in overrides {
            m.insert((*k).to_owned(), v.clone());
        }
        Value::Object(m).to_string()
    }

    #[test]
    fn a_complete_answer_parses_in_dimension_order() {
        let dims = parse(&answer(&[(
            "tool_calling",
            json!({"score": 0, "rationale": " bad args ", "cited_spans": ["b", "a", "a", " "]}),
        )]))
        .unwrap();
        assert_eq!(dims.len(), 7);
        assert_eq!(dims[0].dimension, "goal_fulfillment");
        let tc = &dims[6];
        assert_eq!(tc.dimension, "tool_calling");
        assert_eq!(tc.score, 0);
        assert_eq!(tc.rationale, "bad args");
        assert_eq!(tc.cited_spans, ["a", "b"]);
    }

    #[test]
    fn scores_outside_0_to_3_and_malformed_answers_are_judge_errors() {
        for bad in [
            json!({"score": 4, "rationale": "x", "cited_spans": []}),
            json!({"score": -1, "rationale": "x", "cited_spans": []}),
            json!({"score": 2.5, "rationale": "x", "cited_spans": []}),
            json!({"score": "2", "rationale": "x", "cited_spans": []}),
            json!({"score": 2, "rationale": "x"}),
            json!({"score": 2, "rationale": "x", "cited_spans": [], "confidence": 1}),
            json!(2),
        ] {
            let text = answer(&[("plan_quality", bad.clone())]);
            assert!(parse(&text).is_err(), "accepted {bad}");
        }
        let mut missing: BTreeMap<String, Value> = serde_json::from_str(&answer(&[])).unwrap();
        missing.remove("plan_adherence");
        let err = parse(&serde_json::to_string(&missing).unwrap()).unwrap_err();
        assert!(err.contains("plan_adherence"), "{err}");
        let err = parse(&answer(&[(
            "helpfulness",
            json!({"score": 3, "rationale": "", "cited_spans": []}),
        )]))
        .unwrap_err();
        assert!(err.contains("helpfulness"), "{err}");
    }

    #[test]
    fn citations_of_spans_not_in_the_trace_are_flagged_and_counted() {
        let dims = parse(&answer(&[(
            "goal_fulfillment",
            json!({"score": 1, "rationale": "r", "cited_spans": ["s1", "ghost"]}),
        )]))
        .unwrap();
        let spans: BTreeSet<String> = ["s1".to_owned()].into();
        let (scores, invalid) = scored(&dims, &spans, "judge:x/y");
        assert_eq!(invalid, 1);
        assert_eq!(scores[0].invalid_citations, ["ghost"]);
        assert_eq!(scores[0].score, Some(1.0));
        assert!(scores[1].invalid_citations.is_empty());
    }
}
