//! The answer to a root-cause question ([`super::rca`]): one JSON object
//! `{step, agent, reason}` (bare, or alone in one fenced ```` ```json ````
//! block), no other keys, `step` a non-empty id, `agent` a name or null
//! (present either way), `reason` non-empty. Whether the step and agent
//! exist in the trace is checked by [`super::rca::resolve`], which has it.

use serde::Deserialize;
use serde_json::Value;

use super::answer::{NOTES_CHARS, Parsed, json_body};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRootCause {
    step: String,
    agent: Option<String>,
    reason: String,
}

/// The JSON Schema sent as structured output.
pub(crate) fn json_schema() -> Value {
    serde_json::json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["step", "agent", "reason"],
        "properties": {
            "step": {"type": "string"},
            "agent": {"type": ["string", "null"]},
            "reason": {"type": "string"}
        }
    })
}

pub(crate) fn parse(text: &str) -> Result<Parsed, String> {
    let value: Value = serde_json::from_str(json_body(text)?)
        .map_err(|e| format!("not the expected JSON object: {e}"))?;
    if value.get("agent").is_none() {
        return Err("`agent` is missing (give null when no agent applies)".to_owned());
    }
    let raw: RawRootCause =
        serde_json::from_value(value).map_err(|e| format!("not the expected JSON object: {e}"))?;
    let step = raw.step.trim();
    if step.is_empty() {
        return Err("`step` is empty".to_owned());
    }
    let reason = raw.reason.trim();
    if reason.is_empty() {
        return Err("`reason` is empty".to_owned());
    }
    Ok(Parsed::RootCause {
        step: step.to_owned(),
        agent: raw
            .agent
            .map(|a| a.trim().to_owned())
            .filter(|a| !a.is_empty()),
        reason: crate::llm::prompts::cap_chars(reason, NOTES_CHARS),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judged::answer::AnswerFormat;
    use crate::llm::answer::AnswerFormat as _;

    #[test]
    fn root_causes_are_strict_json() {
        let f = AnswerFormat::RootCause;
        assert_eq!(
        f.parse(r#"{"step": " s4 ", "agent": "Orchestrator", "reason": "asked for code without giving any"}"#)
            .unwrap(),
        Parsed::RootCause {
            step: "s4".into(),
            agent: Some("Orchestrator".into()),
            reason: "asked for code without giving any".into()
        }
    );
        assert_eq!(
            f.parse(r#"{"step": "m2", "agent": null, "reason": "x"}"#)
                .unwrap(),
            Parsed::RootCause {
                step: "m2".into(),
                agent: None,
                reason: "x".into()
            }
        );
        for bad in [
            r#"{"step": "", "agent": "a", "reason": "x"}"#,
            r#"{"step": "s1", "agent": "a", "reason": " "}"#,
            r#"{"step": 4, "agent": "a", "reason": "x"}"#,
            r#"{"step": "s1", "reason": "x"}"#,
            r#"{"step": "s1", "agent": "a", "reason": "x", "confidence": 0.9}"#,
            "The root cause is step s1.",
        ] {
            assert!(f.parse(bad).is_err(), "accepted {bad:?}");
        }
    }
}
