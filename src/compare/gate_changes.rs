//! What a pull request changes in the rules it is judged by: the suites, their
//! checkpoints, gates and cases, and `agenteval.yaml`, between the rules'
//! revision (the PR's base commit) and the working tree. The verdict uses the
//! base's rules; these changes take effect after the merge and are listed at
//! the top of the comment. Each change is classified: a lower severity or
//! `fail_on`, a smaller α, a larger `min_cases`/`min_effect`, a looser absolute
//! limit or a removed checkpoint *weakens* the gate.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::model::rules::{ChangeKind, GateChange};
use crate::spec::gates::{DEFAULT_ALPHA, DEFAULT_MIN_CASES};
use crate::spec::load::LoadedSuite;

/// Longest value shown in a change, in characters.
const MAX_VALUE_CHARS: usize = 80;
/// Case ids listed in one change before "… and N more".
const MAX_IDS: usize = 8;
/// Default `gates.max_judge_error_rate`.
const DEFAULT_MAX_JUDGE_ERROR_RATE: f64 = 0.1;

/// Keys of `suite.yaml` that describe the agent under test, not the gate: the
/// pull request's own values are used, so they are not rule changes.
const NOT_RULES: &[&str] = &["description", "config_tags", "cases"];

/// Every difference between `base` and `head` (suites matched by name) and
/// between the two `agenteval.yaml` texts, weakening changes first.
pub(crate) fn gate_changes(
    base: &[&LoadedSuite],
    head: &[&LoadedSuite],
    base_config: Option<&str>,
    head_config: Option<&str>,
) -> Vec<GateChange> {
    let mut out = Vec::new();
    let by_name = |suites: &[&LoadedSuite]| -> BTreeMap<String, usize> {
        suites
            .iter()
            .enumerate()
            .map(|(i, s)| (s.file.suite.value.clone(), i))
            .collect()
    };
    let (b, h) = (by_name(base), by_name(head));
    for (name, &i) in &b {
        match h.get(name) {
            Some(&j) => suite_changes(name, base[i], head[j], &mut out),
            None => out.push(change(
                Some(name),
                ChangeKind::Removed,
                "suite",
                Some("gated".into()),
                None,
            )),
        }
    }
    for name in h.keys().filter(|n| !b.contains_key(*n)) {
        out.push(change(
            Some(name),
            ChangeKind::Added,
            "suite",
            None,
            Some("new".into()),
        ));
    }
    let parse = |t: Option<&str>| t.map_or(Value::Object(serde_json::Map::new()), yaml_value);
    let mut leaves = Vec::new();
    diff(
        "",
        Some(&parse(base_config)),
        Some(&parse(head_config)),
        &mut leaves,
    );
    out.extend(
        leaves
            .into_iter()
            .map(|(path, a, b)| classified(None, &path, a.as_ref(), b.as_ref())),
    );
    out.sort_by(|x, y| (x.kind, &x.suite, &x.path).cmp(&(y.kind, &y.suite, &y.path)));
    out
}

fn suite_changes(name: &str, base: &LoadedSuite, head: &LoadedSuite, out: &mut Vec<GateChange>) {
    let (mut a, mut b) = (
        yaml_value(base.source.inner()),
        yaml_value(head.source.inner()),
    );
    for v in [&mut a, &mut b] {
        if let Value::Object(map) = v {
            for key in NOT_RULES {
                map.remove(*key);
            }
            // The agent is the PR's, except what it may inherit and how often it runs.
            if let Some(Value::Object(agent)) = map.get_mut("agent") {
                agent.retain(|k, _| k == "env_passthrough" || k == "trials");
            }
        }
    }
    let mut leaves = Vec::new();
    diff("", Some(&a), Some(&b), &mut leaves);
    out.extend(
        leaves
            .into_iter()
            .map(|(path, x, y)| classified(Some(name), &path, x.as_ref(), y.as_ref())),
    );
    case_changes(name, base, head, out);
    prompt_changes(name, base, head, out);
}

/// Judge prompt overrides added, removed or edited (`judge.prompts/<template>`): a
/// prompt decides judged verdicts, so the base's are used until the merge.
fn prompt_changes(name: &str, base: &LoadedSuite, head: &LoadedSuite, out: &mut Vec<GateChange>) {
    let texts = |s: &LoadedSuite| -> BTreeMap<&'static str, String> {
        s.prompt_files
            .iter()
            .flatten()
            .map(|f| (f.name, f.text.clone()))
            .collect()
    };
    let (a, b) = (texts(base), texts(head));
    let shown = |text: &String| {
        let digest = crate::digest::sha256_hex(text.as_bytes());
        format!(
            "{} chars, sha256 {}",
            text.chars().count(),
            digest.get(..12).unwrap_or(&digest)
        )
    };
    let mut names: Vec<&&str> = a.keys().chain(b.keys()).collect();
    names.sort();
    names.dedup();
    for template in names {
        let (x, y) = (a.get(*template), b.get(*template));
        let kind = match (x, y) {
            (Some(x), Some(y)) if x == y => continue,
            (Some(_), Some(_)) => ChangeKind::Changed,
            (Some(_), None) => ChangeKind::Removed,
            (None, _) => ChangeKind::Added,
        };
        out.push(change(
            Some(name),
            kind,
            &format!("judge.prompts/{template}"),
            x.map(shown),
            y.map(shown),
        ));
    }
}

/// Cases added, removed or redefined (same id, other content).
fn case_changes(name: &str, base: &LoadedSuite, head: &LoadedSuite, out: &mut Vec<GateChange>) {
    let cases = |s: &LoadedSuite| -> BTreeMap<String, String> {
        s.cases
            .iter()
            .filter_map(|c| {
                let id = c.entry.id.as_ref()?.value.clone();
                Some((id, case_content(&c.entry)))
            })
            .collect()
    };
    let (a, b) = (cases(base), cases(head));
    let removed: Vec<&String> = a.keys().filter(|k| !b.contains_key(*k)).collect();
    let added: Vec<&String> = b.keys().filter(|k| !a.contains_key(*k)).collect();
    let changed: Vec<&String> = a
        .iter()
        .filter(|(k, v)| b.get(*k).is_some_and(|w| w != *v))
        .map(|(k, _)| k)
        .collect();
    for (ids, kind) in [
        (removed, ChangeKind::Removed),
        (changed, ChangeKind::Changed),
        (added, ChangeKind::Added),
    ] {
        if ids.is_empty() {
            continue;
        }
        let list = id_list(&ids);
        let (before, after) = match kind {
            ChangeKind::Added => (None, Some(list)),
            ChangeKind::Removed => (Some(list), None),
            _ => (Some(list.clone()), Some(list)),
        };
        out.push(change(Some(name), kind, "cases", before, after));
    }
}

/// What a case says, without the YAML positions that move with every edit.
fn case_content(entry: &crate::spec::model::CaseEntry) -> String {
    serde_json::json!({
        "input": entry.input,
        "tags": entry.tags,
        "expected_output": entry.expected_output,
        "expected_tools": entry.expected_tools.iter().map(|t| t.value.as_str()).collect::<Vec<_>>(),
        "difficulty": entry.difficulty,
        "trace": entry.trace,
        "evidence": entry.evidence,
        "metadata": entry.metadata,
    })
    .to_string()
}

fn id_list(ids: &[&String]) -> String {
    let shown: Vec<&str> = ids.iter().take(MAX_IDS).map(|s| s.as_str()).collect();
    let more = ids.len().saturating_sub(MAX_IDS);
    if more == 0 {
        shown.join(", ")
    } else {
        format!("{} … and {more} more", shown.join(", "))
    }
}

fn yaml_value(text: &str) -> Value {
    serde_saphyr::from_str_with_options::<Value>(text, crate::spec::load::yaml_options())
        .unwrap_or(Value::Null)
}

/// The leaves where `a` and `b` differ: objects key by key, arrays of objects
/// with an `id` (checkpoints) or `name` (tools) element by element.
fn diff(
    path: &str,
    a: Option<&Value>,
    b: Option<&Value>,
    out: &mut Vec<(String, Option<Value>, Option<Value>)>,
) {
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                diff(&join(path, k), x.get(k), y.get(k), out);
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y)))
            if keyed(x).is_some() && keyed(y).is_some() =>
        {
            let (x, y) = (keyed(x).unwrap_or_default(), keyed(y).unwrap_or_default());
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                diff(
                    &format!("{path}[{k}]"),
                    x.get(k).copied(),
                    y.get(k).copied(),
                    out,
                );
            }
        }
        (x, y) if x == y => {}
        (x, y) => out.push((path.to_owned(), x.cloned(), y.cloned())),
    }
}

/// The elements of `items` by their `id` (or `name`), when every element has one.
fn keyed(items: &[Value]) -> Option<BTreeMap<String, &Value>> {
    let key = |v: &Value| {
        v.get("id")
            .or_else(|| v.get("name"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let map: BTreeMap<String, &Value> = items
        .iter()
        .map(|v| Some((key(v)?, v)))
        .collect::<Option<_>>()?;
    (map.len() == items.len() && !items.is_empty()).then_some(map)
}

fn join(path: &str, key: &str) -> String {
    let plain = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    match (path.is_empty(), plain) {
        (true, true) => key.to_owned(),
        (false, true) => format!("{path}.{key}"),
        (_, false) => format!("{path}[{key}]"),
    }
}

fn change(
    suite: Option<&str>,
    kind: ChangeKind,
    path: &str,
    before: Option<String>,
    after: Option<String>,
) -> GateChange {
    GateChange {
        suite: suite.map(str::to_owned),
        kind,
        path: path.to_owned(),
        before,
        after,
    }
}

fn classified(suite: Option<&str>, path: &str, a: Option<&Value>, b: Option<&Value>) -> GateChange {
    change(
        suite,
        classify(suite.is_some(), path, a, b),
        path,
        a.map(shown),
        b.map(shown),
    )
}

/// Whether the change loosens the gate. `in_suite` tells `suite.yaml` from `agenteval.yaml`.
fn classify(in_suite: bool, path: &str, a: Option<&Value>, b: Option<&Value>) -> ChangeKind {
    let leaf = path
        .rsplit(['.', '['])
        .next()
        .unwrap_or(path)
        .trim_end_matches(']');
    let num = |v: Option<&Value>, default: f64| v.map_or(Some(default), Value::as_f64);
    let order = |x: Option<f64>, y: Option<f64>, weaker_when_larger: bool| match (x, y) {
        (Some(x), Some(y)) => match y.partial_cmp(&x) {
            Some(std::cmp::Ordering::Greater) if weaker_when_larger => ChangeKind::Weakened,
            Some(std::cmp::Ordering::Less) if !weaker_when_larger => ChangeKind::Weakened,
            Some(std::cmp::Ordering::Greater | std::cmp::Ordering::Less) => {
                ChangeKind::Strengthened
            }
            _ => ChangeKind::Changed,
        },
        _ => ChangeKind::Changed,
    };
    let fail_on = path == "gates.fail_on" || (!in_suite && path == "fail_on");
    if fail_on {
        let rank = |v: Option<&Value>| v.map_or(Some(1.0), |v| v.as_str().and_then(fail_on_rank));
        return order(rank(a), rank(b), false);
    }
    if leaf == "severity" {
        let rank = |v: Option<&Value>| v.and_then(Value::as_str).and_then(severity_rank);
        if a.is_some() && b.is_some() {
            return order(rank(a), rank(b), false);
        }
    }
    match path {
        "gates.alpha" => return order(num(a, DEFAULT_ALPHA), num(b, DEFAULT_ALPHA), false),
        "gates.min_cases" => {
            let d = DEFAULT_MIN_CASES as f64;
            return order(num(a, d), num(b, d), true);
        }
        "gates.max_judge_error_rate" => {
            let d = DEFAULT_MAX_JUDGE_ERROR_RATE;
            return order(num(a, d), num(b, d), true);
        }
        "gates.unevaluated" | "gates.inconclusive" => {
            let warns = |v: Option<&Value>| v.and_then(Value::as_str) == Some("warn");
            return match (warns(a), warns(b)) {
                (false, true) => ChangeKind::Weakened,
                (true, false) => ChangeKind::Strengthened,
                _ => ChangeKind::Changed,
            };
        }
        _ => {}
    }
    // A checkpoint allowed to go unchecked is a rule relaxed.
    if in_suite && path.starts_with("gates.may_be_vacuous") {
        return match (a, b) {
            (None, Some(_)) => ChangeKind::Weakened,
            (Some(_), None) => ChangeKind::Strengthened,
            _ => ChangeKind::Changed,
        };
    }
    if in_suite && path.starts_with("gates.") {
        match leaf {
            "min_effect" => return order(num(a, 0.0), num(b, 0.0), true),
            "min" => return order(num(a, f64::NEG_INFINITY), num(b, f64::NEG_INFINITY), false),
            "max" => return order(num(a, f64::INFINITY), num(b, f64::INFINITY), true),
            _ => {}
        }
    }
    match (a, b) {
        (None, _) => ChangeKind::Added,
        (_, None)
            if in_suite && (path.starts_with("checkpoints[") || path.starts_with("gates.")) =>
        {
            ChangeKind::Weakened
        }
        (_, None) => ChangeKind::Removed,
        _ => ChangeKind::Changed,
    }
}

/// `fail_on` from most lenient (`never`) to strictest (`low`).
fn fail_on_rank(s: &str) -> Option<f64> {
    Some(match s {
        "never" => 0.0,
        "critical" => 1.0,
        "high" => 2.0,
        "medium" => 3.0,
        "low" => 4.0,
        _ => return None,
    })
}

fn severity_rank(s: &str) -> Option<f64> {
    Some(match s {
        "low" => 1.0,
        "medium" => 2.0,
        "high" => 3.0,
        "critical" => 4.0,
        _ => return None,
    })
}

/// A value as shown: strings bare, the rest compact JSON, capped.
fn shown(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    crate::output::cap_chars(&s, MAX_VALUE_CHARS)
}

#[cfg(test)]
mod tests;
