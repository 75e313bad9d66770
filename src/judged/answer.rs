//! What a judge must answer, and the strict parsers that accept only that:
//! every kind of question the gate asks, as one [`AnswerFormat`] of the
//! transport (`llm/`).
//!
//! An answer that does not parse is never guessed at: the transport asks once
//! more with the parse error, then the call fails with
//! [`crate::llm::error::CallError::Invalid`] and the item becomes N/A
//! `judge_error`. Only answers that parse are cached. What is not a guess:
//! the one JSON object of an answer that has prose around it (a preface line
//! is common without a schema), and the one `Score:` line of a score answer
//! wherever it stands; two objects or two score lines are an error.
//!
//! - [`AnswerFormat::Checkpoint`]: one JSON object `{verdict, criterion,
//!   notes, cited_spans}` (bare, alone in one fenced ```` ```json ````
//!   block, or the only JSON object in the text), no other keys, `verdict` one of `PASS`/`PARTIAL`/`FAIL`,
//!   `criterion` the 1-based number of a partial criterion for PARTIAL and
//!   null otherwise. Sent as a JSON Schema where the server supports it.
//! - [`AnswerFormat::Score`]: free reasoning with exactly one line
//!   `Score: N` (any case, optionally bold, `N/max` accepted), N in the
//!   scale; the other lines, before or after it, are the reasoning. Step metrics use 1–5; the 0–3 scale is there for
//!   trace-level judges.
//! - [`AnswerFormat::Semantic`]: one JSON object `{equivalent, notes}`.
//! - [`AnswerFormat::Gpa`]: one JSON object with the seven GPA dimensions,
//!   each `{score: 0–3, rationale, cited_spans}` (see [`super::gpa`]).
//! - [`AnswerFormat::RootCause`]: one JSON object `{step, agent, reason}`,
//!   `step` a non-empty id, `agent` a name or null, `reason` non-empty. Whether
//!   the step and agent exist in the trace is checked by the caller
//!   ([`super::rca`]), which has the trace.

use serde::Deserialize;
use serde_json::{Value, json};

/// A question the gate asks, with its answer format.
pub type Request = crate::llm::Request<AnswerFormat>;
/// What became of one question.
pub type Outcome = crate::llm::Outcome<Parsed>;

/// Longest note kept from an answer.
pub(crate) const NOTES_CHARS: usize = 1_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AnswerFormat {
    /// A tier-3 verdict; `criteria` is the number of partial criteria.
    Checkpoint { criteria: usize },
    /// `Score: N` on the last line, `min ≤ N ≤ max`.
    Score { min: u8, max: u8 },
    /// Semantic equivalence with a reference answer.
    Semantic,
    /// The seven GPA trace dimensions, 0–3 each (see [`super::gpa`]).
    Gpa,
    /// Drafted tier-3 checkpoints (see [`super::rubric`]).
    Rubric,
    /// A recurring issue's name and summary (see [`super::insight_names`]).
    IssueName,
    /// The decisive error step and agent of a failed run.
    RootCause,
}

/// A tier-3 state as the judge gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum JudgedState {
    Fail,
    Partial,
    Pass,
}

impl JudgedState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pass => "PASS",
            Self::Partial => "PARTIAL",
            Self::Fail => "FAIL",
        }
    }
}

/// A parsed answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    Checkpoint {
        state: JudgedState,
        /// 1-based partial criterion (PARTIAL only).
        criterion: Option<usize>,
        notes: String,
        cited_spans: Vec<String>,
    },
    Score {
        score: u8,
        /// The reasoning before the score line, capped.
        reasoning: String,
    },
    Semantic {
        equivalent: bool,
        notes: String,
    },
    Gpa(Vec<super::gpa::DimensionScore>),
    Rubric(Vec<super::rubric::DraftItem>),
    IssueName(super::insight_names::IssueName),
    RootCause {
        step: String,
        agent: Option<String>,
        reason: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVerdict {
    verdict: String,
    #[serde(default)]
    criterion: Option<Value>,
    notes: String,
    #[serde(default)]
    cited_spans: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSemantic {
    equivalent: bool,
    notes: String,
}

impl crate::llm::answer::AnswerFormat for AnswerFormat {
    type Parsed = Parsed;

    fn name(&self) -> &'static str {
        match self {
            Self::Checkpoint { .. } => "checkpoint_verdict",
            Self::Score { .. } => "score_line",
            Self::Semantic => "semantic_match",
            Self::Gpa => "gpa_scores",
            Self::Rubric => "rubric_draft",
            Self::IssueName => "issue_name",
            Self::RootCause => "root_cause",
        }
    }

    fn json_schema(&self) -> Option<Value> {
        match self {
            Self::Checkpoint { .. } => Some(json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["verdict", "criterion", "notes", "cited_spans"],
                "properties": {
                    "verdict": {"type": "string", "enum": ["PASS", "PARTIAL", "FAIL"]},
                    "criterion": {"type": ["integer", "null"]},
                    "notes": {"type": "string"},
                    "cited_spans": {"type": "array", "items": {"type": "string"}}
                }
            })),
            Self::Semantic => Some(json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["equivalent", "notes"],
                "properties": {
                    "equivalent": {"type": "boolean"},
                    "notes": {"type": "string"}
                }
            })),
            Self::Gpa => Some(super::gpa::json_schema()),
            Self::Rubric => Some(super::rubric::json_schema()),
            Self::IssueName => Some(super::insight_names::json_schema()),
            Self::RootCause => Some(super::rca_answer::json_schema()),
            Self::Score { .. } => None,
        }
    }

    /// About twice what a well-formed answer takes (a verdict or score with notes capped
    /// at a few hundred characters), so the budget errs on the side of stopping early.
    fn expected_output_tokens(&self) -> u32 {
        match self {
            Self::Checkpoint { .. } | Self::Score { .. } | Self::RootCause => 250,
            Self::Semantic | Self::IssueName => 150,
            Self::Gpa => 800,
            Self::Rubric => 2000,
        }
    }

    fn parse(&self, text: &str) -> Result<Parsed, String> {
        match *self {
            Self::Checkpoint { criteria } => parse_verdict(text, criteria),
            Self::Score { min, max } => parse_score(text, min, max),
            Self::Semantic => {
                let raw: RawSemantic = serde_json::from_str(json_body(text)?)
                    .map_err(|e| format!("not the expected JSON object: {e}"))?;
                Ok(Parsed::Semantic {
                    equivalent: raw.equivalent,
                    notes: crate::output::cap_chars(raw.notes.trim(), NOTES_CHARS),
                })
            }
            Self::Gpa => super::gpa::parse(json_body(text)?).map(Parsed::Gpa),
            Self::Rubric => super::rubric::parse(json_body(text)?).map(Parsed::Rubric),
            Self::IssueName => super::insight_names::parse(json_body(text)?).map(Parsed::IssueName),
            Self::RootCause => super::rca_answer::parse(text),
        }
    }
}

/// The JSON object of an answer: the whole text, the whole of one fenced block, or else the
/// only JSON object in the text (prose or a fence around it). None, or more than one, is an
/// error.
pub(crate) fn json_body(text: &str) -> Result<&str, String> {
    let t = text.trim();
    match whole_body(t) {
        Ok(body) => Ok(body),
        // The scan starts a parse at every `{`: only on answers of a sane size.
        Err(why) if t.len() > SCAN_LIMIT => Err(why),
        Err(why) => match objects_in(t).as_slice() {
            [one] => Ok(one),
            [] => Err(why),
            many => Err(format!(
                "the answer holds {} JSON objects; exactly one may",
                many.len()
            )),
        },
    }
}

/// Longest answer searched for its one JSON object (far above any `max_tokens`).
const SCAN_LIMIT: usize = 64 * 1024;

/// The text itself, or the inside of one fenced block that is the whole text, when it is
/// delimited as one JSON object.
fn whole_body(t: &str) -> Result<&str, String> {
    let body = if let Some(rest) = t.strip_prefix("```") {
        let rest = rest.strip_prefix("json").unwrap_or(rest);
        let rest = rest
            .strip_prefix('\n')
            .or_else(|| rest.strip_prefix("\r\n"))
            .ok_or("a fenced block must start with ```json and a newline")?;
        let inner = rest
            .strip_suffix("```")
            .ok_or("the fenced block is not closed, or text follows it")?;
        inner.trim()
    } else {
        t
    };
    if body.starts_with('{') && body.ends_with('}') {
        Ok(body)
    } else {
        Err("the answer is not a single JSON object".to_owned())
    }
}

/// The JSON objects of `text` that are not inside another one, in order: from each `{`, the
/// longest prefix that is one JSON value.
fn objects_in(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(offset) = text[at..].find('{') {
        let start = at + offset;
        let mut values =
            serde_json::Deserializer::from_str(&text[start..]).into_iter::<serde::de::IgnoredAny>();
        if let Some(Ok(_)) = values.next() {
            let end = start + values.byte_offset();
            found.push(&text[start..end]);
            at = end;
        } else {
            at = start + 1;
        }
    }
    found
}

fn parse_verdict(text: &str, criteria: usize) -> Result<Parsed, String> {
    let raw: RawVerdict = serde_json::from_str(json_body(text)?)
        .map_err(|e| format!("not the expected JSON object: {e}"))?;
    let state = match raw.verdict.as_str() {
        "PASS" => JudgedState::Pass,
        "PARTIAL" => JudgedState::Partial,
        "FAIL" => JudgedState::Fail,
        other => return Err(format!("`verdict` is `{other}`, not PASS, PARTIAL or FAIL")),
    };
    let criterion = match raw.criterion {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_u64() {
            Some(c) => Some(usize::try_from(c).unwrap_or(usize::MAX)),
            None => return Err(format!("`criterion` is {n}, not a criterion number")),
        },
        Some(other) => return Err(format!("`criterion` is {other}, not a number or null")),
    };
    match (state, criterion) {
        (JudgedState::Partial, None) => {
            return Err("PARTIAL without the number of the matched criterion".to_owned());
        }
        (JudgedState::Partial, Some(c)) if c == 0 || c > criteria => {
            return Err(if criteria == 0 {
                "PARTIAL, but the checkpoint has no partial criteria".to_owned()
            } else {
                format!("criterion {c} does not exist (1–{criteria})")
            });
        }
        (JudgedState::Pass | JudgedState::Fail, Some(c)) => {
            return Err(format!("criterion {c} given with {}", state.as_str()));
        }
        _ => {}
    }
    let mut cited: Vec<String> = raw
        .cited_spans
        .into_iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect();
    cited.dedup();
    Ok(Parsed::Checkpoint {
        state,
        criterion,
        notes: crate::output::cap_chars(raw.notes.trim(), NOTES_CHARS),
        cited_spans: cited,
    })
}

fn parse_score(text: &str, min: u8, max: u8) -> Result<Parsed, String> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.is_empty() {
        return Err("the answer is empty".to_owned());
    }
    let value_of = |line: &str| -> Option<String> {
        let bare = line.trim_matches(|c| matches!(c, '*' | '#' | '_' | ' '));
        let head = bare.get(..6)?;
        head.eq_ignore_ascii_case("score:").then(|| {
            bare[6..]
                .trim_matches(|c| matches!(c, '*' | '_' | ' '))
                .to_owned()
        })
    };
    let scored: Vec<(usize, String)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| value_of(l).map(|v| (i, v)))
        .collect();
    let (at, value) = match scored.as_slice() {
        [] => return Err("no line is `Score: N`".to_owned()),
        [(at, value)] => (*at, value.as_str()),
        many => {
            return Err(format!(
                "{} lines start with `Score:`; exactly one may",
                many.len()
            ));
        }
    };
    // `4/5` on a 1–5 scale; another denominator is another scale.
    let value = match value.split_once('/') {
        Some((n, of)) if of.trim() == max.to_string() => n.trim(),
        Some(_) => return Err(format!("`Score: {value}` is not on the {min}–{max} scale")),
        None => value,
    };
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) || value.len() > 2 {
        return Err(format!("`Score: {value}` is not a whole number"));
    }
    let score: u8 = value
        .parse()
        .map_err(|_| format!("`{value}` is not a score"))?;
    if !(min..=max).contains(&score) {
        return Err(format!("score {score} is outside {min}–{max}"));
    }
    let reasoning: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != at)
        .map(|(_, l)| *l)
        .collect();
    Ok(Parsed::Score {
        score,
        reasoning: crate::output::cap_chars(&reasoning.join(" "), NOTES_CHARS),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::answer::AnswerFormat as _;

    const CP: AnswerFormat = AnswerFormat::Checkpoint { criteria: 2 };
    const STEP: AnswerFormat = AnswerFormat::Score { min: 1, max: 5 };

    #[test]
    fn verdicts_parse_bare_or_fenced_and_nothing_else() {
        let ok = r#"{"verdict": "PARTIAL", "criterion": 2, "notes": " n ", "cited_spans": ["a", "a", " "]}"#;
        assert_eq!(
            CP.parse(ok).unwrap(),
            Parsed::Checkpoint {
                state: JudgedState::Partial,
                criterion: Some(2),
                notes: "n".into(),
                cited_spans: vec!["a".into()],
            }
        );
        assert!(CP.parse(&format!("```json\n{ok}\n```")).is_ok());
        // The one object of an answer with prose around it (issue 21 item 5).
        for wrapped in [
            format!("Here is my verdict:\n{ok}"),
            format!("Sure! {ok} Hope this helps."),
            format!("My assessment:\n\n```json\n{ok}\n```\nThe agent {{mostly}} complied."),
        ] {
            assert_eq!(
                CP.parse(&wrapped).unwrap(),
                CP.parse(ok).unwrap(),
                "{wrapped}"
            );
        }
        for bad in [
            "PASS",
            "Sure! {\"verdict\": \"PASS\"} or {\"verdict\": \"FAIL\", \"notes\": \"x\"}",
            "Sure! {\"verdict\": \"PASS\", \"notes\": \"x\"",
            r#"{"verdict": "pass", "notes": "x"}"#,
            r#"{"verdict": "PASS", "notes": "x", "confidence": 1}"#,
            r#"{"verdict": "PARTIAL", "notes": "x"}"#,
            r#"{"verdict": "PARTIAL", "criterion": 3, "notes": "x"}"#,
            r#"{"verdict": "PASS", "criterion": 1, "notes": "x"}"#,
            r#"{"verdict": "PASS", "criterion": "1", "notes": "x"}"#,
            "```json\n{\"verdict\": \"PASS\", \"notes\": \"x\"}\n``` and {\"more\": 1}",
            "",
        ] {
            assert!(CP.parse(bad).is_err(), "accepted {bad:?}");
        }
        assert!(
            AnswerFormat::Checkpoint { criteria: 0 }
                .parse(r#"{"verdict": "PARTIAL", "criterion": 1, "notes": "x"}"#)
                .is_err()
        );
    }

    #[test]
    fn scores_need_exactly_one_score_line() {
        assert_eq!(
            STEP.parse("Covers everything.\n\nScore: 4\n").unwrap(),
            Parsed::Score {
                score: 4,
                reasoning: "Covers everything.".into()
            }
        );
        // Where models put it (issue 21 item 5): first, bold, lower case, out of 5.
        for (text, reasoning) in [
            (
                "Score: 4\nReason: covers everything.",
                "Reason: covers everything.",
            ),
            ("**Score: 4**\nfine", "fine"),
            ("score: 4", ""),
            ("Thinking.\n**Score:** 4/5\nDone.", "Thinking. Done."),
        ] {
            assert_eq!(
                STEP.parse(text).unwrap(),
                Parsed::Score {
                    score: 4,
                    reasoning: reasoning.into()
                },
                "{text}"
            );
        }
        for bad in [
            "Score: 6",
            "Score: 0",
            "Score: 4.5",
            "Score: four",
            "Score: 3\nScore: 4",
            "Score: 3\n**score:** 4",
            "Score: 4/10",
            "The score is 4",
            "",
        ] {
            assert!(STEP.parse(bad).is_err(), "accepted {bad:?}");
        }
        assert!(
            AnswerFormat::Score { min: 0, max: 3 }
                .parse("Score: 0")
                .is_ok()
        );
    }

    #[test]
    fn semantic_answers_are_strict_json() {
        assert_eq!(
            AnswerFormat::Semantic
                .parse(r#"{"equivalent": false, "notes": "wrong date"}"#)
                .unwrap(),
            Parsed::Semantic {
                equivalent: false,
                notes: "wrong date".into()
            }
        );
        assert!(
            AnswerFormat::Semantic
                .parse(r#"{"equivalent": "yes", "notes": ""}"#)
                .is_err()
        );
    }
}
