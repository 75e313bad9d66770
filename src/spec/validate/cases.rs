//! Case checks: ids present and unique, expected tools in the catalog,
//! exactly one task-success matcher.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::spec::load::Origin;
use crate::spec::matcher::compile_regex;
use crate::spec::suite::Case;

use super::catalog::Catalog;
use super::context::Ctx;

pub(super) fn validate(cx: &mut Ctx<'_>, tools: &Catalog) -> Vec<Case> {
    let loaded = cx.loaded;
    let mut seen: BTreeMap<&str, String> = BTreeMap::new();
    let mut out = Vec::new();
    if loaded.cases.is_empty() {
        cx.warning(
            super::context::loc(&loaded.file.suite),
            "the suite has no cases",
            "add `cases:` inline or `- include: cases.jsonl`",
        );
    }
    for case in &loaded.cases {
        let e = &case.entry;
        let Some(id) = &e.id else {
            cx.error_at_origin(
                &case.origin,
                "a case has no `id`",
                "every case needs a unique, stable `id`",
            );
            continue;
        };
        // JSONL cases have no YAML span; their origin is the line.
        let origin = if id.referenced.line() == 0 {
            case.origin.clone()
        } else {
            super::super::load::LoadedSuite::yaml_origin(id.referenced)
        };
        let name = id.value.as_str();
        if let Some((message, hint)) = super::ids::case_id_problem(name) {
            cx.error_at_origin(&origin, message, hint);
            continue;
        }
        if let Some(first) = seen.insert(name, describe(loaded, &origin)) {
            cx.error_at_origin(
                &origin,
                format!("duplicate case id `{name}` (first defined at {first})"),
                "case ids pair runs with the baseline: keep them unique and stable",
            );
            continue;
        }
        for tool in &e.expected_tools {
            if !tools.contains(&tool.value) {
                let at = if tool.referenced.line() == 0 {
                    origin.clone()
                } else {
                    super::super::load::LoadedSuite::yaml_origin(tool.referenced)
                };
                cx.error_at_origin(
                    &at,
                    format!(
                        "case `{name}` expects tool `{}`, which is not in the `tools:` catalog",
                        tool.value
                    ),
                    format!("add `- name: {}` to `tools:`, or fix the name", tool.value),
                );
            }
        }
        if let Some(expected) = &e.expected_output {
            let matchers = expected.matchers();
            if matchers.len() != 1 {
                cx.error_at_origin(
                    &origin,
                    format!(
                        "`expected_output` of case `{name}` needs exactly one matcher (found {})",
                        matchers.len()
                    ),
                    "one of `exact`, `normalized`, `contains`, `regex`, `json_keys`, `semantic`",
                );
            }
            if let Some(pattern) = &expected.regex
                && let Err(err) = compile_regex(pattern)
            {
                cx.error_at_origin(
                    &origin,
                    format!("`expected_output.regex` of case `{name}` is invalid: {err}"),
                    err.hint("", "the syntax is Rust's `regex` crate"),
                );
            }
        }
        if e.input.is_none() && loaded.file.agent.is_some() {
            cx.warning_at_origin(
                &origin,
                format!("case `{name}` has no `input` but the suite runs an agent"),
                "give the agent an `input`",
            );
        }
        out.push(Case {
            id: name.to_owned(),
            input: e.input.clone().unwrap_or(Value::Null),
            tags: e.tags.clone(),
            expected_output: e.expected_output.clone(),
            expected_tools: e.expected_tools.iter().map(|t| t.value.clone()).collect(),
            difficulty: e.difficulty.clone(),
            trace: e.trace.as_ref().map(|t| loaded.dir.join(t)),
            evidence: e.evidence.as_ref().map(|t| loaded.dir.join(t)),
            metadata: e.metadata.clone(),
        });
    }
    out
}

fn describe(loaded: &crate::spec::load::LoadedSuite, origin: &Origin) -> String {
    let path = origin
        .include
        .and_then(|i| loaded.includes.get(i))
        .map_or(&loaded.path, |inc| &inc.path);
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    );
    format!("{file}:{}", origin.line)
}
