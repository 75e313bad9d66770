//! Agent names that a span claims but cannot have.
//!
//! opentelemetry-instrumentation-openai-agents-v2 0.1.0 writes
//! `gen_ai.agent.name` = `OpenAI Agent` (its own default) on every `chat`,
//! `execute_tool` and handoff span, inside `invoke_agent triage_agent` and
//! `invoke_agent weather_agent` alike (issue 22 item 4). A name that spans
//! claim under two or more differently named `invoke_agent` spans is no
//! agent of theirs: it is dropped (the span then takes its nearest agent
//! ancestor's name), with one warning per name.

use std::collections::{BTreeMap, BTreeSet};

use crate::trace::model::{Span, SpanKind};

/// The agent an `invoke_agent X` / `create_agent X` span defines.
fn defined_agent(span: &Span) -> Option<&str> {
    if span.kind != SpanKind::Agent {
        return None;
    }
    let (head, rest) = span.name.split_once(' ')?;
    let rest = rest.trim();
    (matches!(head, "invoke_agent" | "create_agent")
        && !rest.is_empty()
        && span.agent.as_deref() == Some(rest))
    .then_some(rest)
}

/// Drop the agent names spans claim under several different agents (see
/// the module docs); before agents are inherited. `parents`: each span's
/// parent index (`assemble::parent_indices`).
pub(crate) fn drop_misattributed(
    spans: &mut [Span],
    parents: &[Option<usize>],
    warnings: &mut Vec<String>,
) {
    // Per claimed name: the defining agents it was claimed under, and how
    // many spans claimed it.
    let mut claims: BTreeMap<String, (BTreeSet<String>, usize)> = BTreeMap::new();
    for (at_span, span) in spans.iter().enumerate() {
        let Some(claimed) = span.agent.as_deref() else {
            continue;
        };
        if defined_agent(span).is_some() {
            continue;
        }
        let mut at = parents[at_span];
        let mut steps = 0;
        let owner = loop {
            let Some(i) = at else { break None };
            steps += 1;
            if steps > spans.len() {
                break None;
            }
            if let Some(name) = defined_agent(&spans[i]) {
                break Some(name);
            }
            at = parents[i];
        };
        if let Some(owner) = owner.filter(|o| *o != claimed) {
            let entry = claims.entry(claimed.to_owned()).or_default();
            entry.0.insert(owner.to_owned());
            entry.1 += 1;
        }
    }
    let wrong: BTreeMap<String, (BTreeSet<String>, usize)> = claims
        .into_iter()
        .filter(|(_, (owners, _))| owners.len() > 1)
        .collect();
    if wrong.is_empty() {
        return;
    }
    let mut dropped: BTreeMap<&str, usize> = BTreeMap::new();
    for span in spans.iter_mut() {
        if defined_agent(span).is_some() {
            continue;
        }
        if let Some(name) = span.agent.as_deref()
            && let Some((name, _)) = wrong.get_key_value(name)
        {
            *dropped.entry(name.as_str()).or_default() += 1;
            span.agent = None;
        }
    }
    for (name, (owners, _)) in &wrong {
        let owners: Vec<String> = owners.iter().map(|o| format!("`{o}`")).collect();
        warnings.push(format!(
            "{} spans claim `gen_ai.agent.name` `{name}` while running inside the agents {} \
             (`invoke_agent` spans); a span cannot belong to several agents, so the name is \
             not used and each span takes the agent it runs inside \
             (opentelemetry-instrumentation-openai-agents-v2 0.1.0 writes its own default name \
             on child spans)",
            dropped.get(name.as_str()).copied().unwrap_or(0),
            owners.join(" and ")
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::assemble::parent_indices;

    fn span(id: &str, parent: Option<&str>, name: &str, kind: SpanKind, agent: &str) -> Span {
        let mut s = Span::new(id, name, kind, 0);
        s.parent = parent.map(Into::into);
        s.agent = (!agent.is_empty()).then(|| agent.into());
        s
    }

    #[test]
    fn a_name_claimed_under_two_agents_is_dropped_a_sub_agent_under_one_is_kept() {
        let mut spans = vec![
            span("a", None, "invoke_agent triage", SpanKind::Agent, "triage"),
            span("a1", Some("a"), "chat m", SpanKind::Llm, "Default"),
            span("a2", Some("a"), "chat m", SpanKind::Llm, "researcher"),
            span(
                "b",
                None,
                "invoke_agent weather",
                SpanKind::Agent,
                "weather",
            ),
            span("b1", Some("b"), "execute_tool t", SpanKind::Tool, "Default"),
        ];
        let mut warnings = Vec::new();
        let parents = parent_indices(&spans);
        drop_misattributed(&mut spans, &parents, &mut warnings);
        let agents: Vec<Option<&str>> = spans.iter().map(|s| s.agent.as_deref()).collect();
        assert_eq!(
            agents,
            [
                Some("triage"),
                None,
                Some("researcher"),
                Some("weather"),
                None
            ]
        );
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with("2 spans claim `gen_ai.agent.name` `Default`"));

        // One agent only: nothing to say.
        let mut spans = vec![
            span("a", None, "invoke_agent triage", SpanKind::Agent, "triage"),
            span("a1", Some("a"), "chat m", SpanKind::Llm, "Default"),
        ];
        let mut warnings = Vec::new();
        let parents = parent_indices(&spans);
        drop_misattributed(&mut spans, &parents, &mut warnings);
        assert_eq!(spans[1].agent.as_deref(), Some("Default"));
        assert!(warnings.is_empty());
    }
}
