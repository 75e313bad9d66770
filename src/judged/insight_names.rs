//! Judge-named recurring issues (opt-in: the suite's `judge.insight_summaries:
//! true` or `--insight-summaries`). The groups themselves are deterministic
//! (see [`crate::insights`]); the judge only gives the [`MAX_GROUPS`] most
//! widespread ones a short name and a one-sentence summary, from the
//! group's label, node, normalised message and up to three example
//! messages, all fenced. **At most `MAX_GROUPS` questions per run** (not
//! per case), through the same cache and budget as every other question; a
//! group whose question fails keeps no name and the failure is counted.

use serde::Deserialize;
use serde_json::{Value, json};

use super::answer::NOTES_CHARS;
use super::tier::SuiteJudge;
use crate::insights::{Insights, IssueSummary};
use crate::judged::answer::{Outcome, Request};
use crate::llm::error::JudgeError;
use crate::llm::prompts::{cap_chars, fence};
use crate::model::run::{CaseReport, JudgeSummary};

/// Groups named per run, most widespread first.
pub(crate) const MAX_GROUPS: usize = 20;
/// Longest name kept.
const NAME_CHARS: usize = 80;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawName {
    name: String,
    summary: String,
}

/// One named issue, as parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueName {
    pub name: String,
    pub summary: String,
}

/// The JSON Schema of an answer.
pub(crate) fn json_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["name", "summary"],
        "properties": {"name": {"type": "string"}, "summary": {"type": "string"}}
    })
}

/// Parse an answer strictly: both fields non-empty, the name one line of at most 80 characters.
pub(crate) fn parse(body: &str) -> Result<IssueName, String> {
    let raw: RawName =
        serde_json::from_str(body).map_err(|e| format!("not the expected JSON object: {e}"))?;
    let name = raw.name.split_whitespace().collect::<Vec<_>>().join(" ");
    let summary = raw.summary.split_whitespace().collect::<Vec<_>>().join(" ");
    if name.is_empty() || name.chars().count() > NAME_CHARS {
        return Err(format!("the name must hold 1 to {NAME_CHARS} characters"));
    }
    if summary.is_empty() {
        return Err("the summary is empty".to_owned());
    }
    Ok(IssueName {
        name,
        summary: cap_chars(&summary, NOTES_CHARS),
    })
}

/// Name the most widespread groups of `insights` (messages of `cases` as examples).
pub(crate) fn name_groups(
    judge: &SuiteJudge,
    insights: &mut Insights,
    cases: &[CaseReport],
) -> Result<JudgeSummary, JudgeError> {
    let prompts = &judge.settings.prompts;
    let n = insights.groups.len().min(MAX_GROUPS);
    let requests: Vec<Request> = insights.groups[..n]
        .iter()
        .map(|g| {
            let examples = example_messages(cases, &g.id);
            // Label, node and messages all come from traces and suites: all fenced.
            let group = format!(
                "label: {}\nnode: {}\nnormalised message: {}\noriginal messages:\n{}",
                g.label,
                g.node.display(),
                g.message,
                examples.join("\n")
            );
            let ctx = json!({
                "cases": g.cases,
                "total_cases": insights.cases,
                "group": fence("issue", &group, 4_000),
            });
            Ok(Request {
                prompt: prompts.prompt("issue", &ctx)?,
                format: super::answer::AnswerFormat::IssueName,
                repeat: 0,
            })
        })
        .collect::<Result<_, JudgeError>>()?;
    let (outcomes, summary) = judge.ask(&requests)?;
    for (g, outcome) in insights.groups.iter_mut().zip(outcomes) {
        if let Outcome::Answered(a) = outcome
            && let super::answer::Parsed::IssueName(named) = a.parsed
        {
            g.summary = Some(IssueSummary {
                name: named.name,
                summary: named.summary,
                by: a.by.label(),
            });
        }
    }
    Ok(summary)
}

/// Up to three original messages of the group `id`, one per case.
fn example_messages(cases: &[CaseReport], id: &str) -> Vec<String> {
    let mut out = Vec::new();
    for case in cases {
        for c in crate::insights::critiques_of_case(case) {
            let gid = crate::insights::collect::group_id(
                c.source,
                &c.label,
                &c.node,
                &crate::insights::normalize_message(&c.message),
            );
            if gid == id {
                out.push(format!("case {}: {}", case.id, cap_chars(&c.message, 600)));
                break;
            }
        }
        if out.len() == 3 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn names_parse_strictly() {
        let n = parse(
            r#"{"name": " Refund  without approval ", "summary": "The agent refunds\nfirst."}"#,
        )
        .unwrap();
        assert_eq!(n.name, "Refund without approval");
        assert_eq!(n.summary, "The agent refunds first.");
        for bad in [
            r#"{"name": "", "summary": "s"}"#,
            r#"{"name": "n", "summary": " "}"#,
            r#"{"name": "n", "summary": "s", "severity": "high"}"#,
            r#"{"title": "n", "summary": "s"}"#,
        ] {
            assert!(parse(bad).is_err(), "accepted {bad}");
        }
        assert!(
            parse(&format!(
                r#"{{"name": "{}", "summary": "s"}}"#,
                "x".repeat(81)
            ))
            .is_err()
        );
    }
}
