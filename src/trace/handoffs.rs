//! `OpenAI` Agents SDK handoffs, linked to the model's request.
//!
//! The SDK offers each handoff to the model as a tool named
//! `transfer_to_<agent>` (its `Handoff.default_tool_name`: the agent's name
//! in snake case). When the model calls it, the SDK records the handoff as
//! its own span: openinference-instrumentation-openai-agents 2.6.0 writes a
//! TOOL span named `handoff to <agent>`, with no tool name, call id or
//! arguments; opentelemetry-instrumentation-openai-agents-v2 0.1.0 an
//! `agent_handoff` span with `gen_ai.handoff.to_agent`, which the `GenAI`
//! mapper names the same way. Unlinked, the request is a tool call that never ran and the
//! handoff a second, separate step (issue 22 item 4). Each such span takes
//! the name, call id and arguments of the latest earlier request for
//! `transfer_to_<agent>` that no execution answered.

use std::collections::HashSet;

use crate::model::ShortText;
use crate::trace::model::Span;

const HANDOFF_PREFIX: &str = "handoff to ";

/// The tool name a handoff span to `agent` gets before it is linked.
pub(crate) fn handoff_span_name(agent: &str) -> String {
    format!("{HANDOFF_PREFIX}{agent}")
}

/// The SDK's default tool name for a handoff to `agent`: `transfer_to_`
/// and the name with every character but ASCII letters and digits as `_`,
/// in lower case (`transform_string_function_style`).
fn transfer_tool(agent: &str) -> String {
    let snake: String = agent
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("transfer_to_{snake}")
}

/// Link every handoff span of `spans` (in time order) to its request.
pub(crate) fn link_handoffs(spans: &mut [Span]) {
    let targets: Vec<(usize, String)> = spans
        .iter()
        .enumerate()
        .filter_map(|(at, s)| {
            let tool = s.tool.as_ref()?;
            if tool.call_id.is_some() {
                return None;
            }
            let agent = tool.name.strip_prefix(HANDOFF_PREFIX)?;
            Some((at, transfer_tool(agent)))
        })
        .collect();
    if targets.is_empty() {
        return;
    }
    let answered: HashSet<ShortText> = spans
        .iter()
        .filter_map(|s| s.tool.as_ref()?.call_id.clone())
        .collect();
    let mut taken: HashSet<ShortText> = HashSet::new();
    for (at, wanted) in targets {
        let request = spans[..at]
            .iter()
            .rev()
            .flat_map(|s| {
                s.requested_tool_calls()
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
            })
            .find(|c| {
                c.name == wanted
                    && c.id
                        .as_ref()
                        .is_some_and(|id| !answered.contains(id) && !taken.contains(id))
            })
            .cloned();
        let Some(request) = request else { continue };
        let Some(tool) = spans[at].tool.as_mut() else {
            continue;
        };
        tool.name = request.name;
        tool.call_id.clone_from(&request.id);
        // The span records the agent handing off (`triage_agent`), not
        // arguments: the request's are the call's (none: `{}`).
        tool.arguments = Some(if request.arguments.is_null() {
            serde_json::json!({}).into()
        } else {
            request.arguments
        });
        tool.arguments_text = request.arguments_text;
        if let Some(id) = request.id {
            taken.insert(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfer_tool_names_follow_the_sdk() {
        assert_eq!(transfer_tool("weather_agent"), "transfer_to_weather_agent");
        assert_eq!(transfer_tool("Weather Agent"), "transfer_to_weather_agent");
        assert_eq!(transfer_tool("billing-bot"), "transfer_to_billing_bot");
    }
}
