//! Lint only: evidence pointers (tier-1 `assert`, `active_when`,
//! `applies_to.evidence`, `task.success.evidence`) that resolve in none of
//! the suite's evidence files are almost always typos. Each gets a warning
//! with the nearest key that does exist.

use std::path::PathBuf;

use serde_json::Value;

use crate::diagnostic::FileDiagnostic;
use crate::spec::load::LoadedSuite;
use crate::spec::model::AssertSpec;

use super::context::nearest;

/// Warnings for pointers that no evidence file of the suite's cases has.
/// Reads `<evidence>/<case id>.json` (or the case's `evidence:` file); a
/// file that is not JSON is skipped here (`lint` reports it as an error).
pub(crate) fn check_evidence_pointers(loaded: &LoadedSuite) -> Vec<FileDiagnostic> {
    let mut out = Vec::new();
    let documents = read_documents(loaded);
    if documents.is_empty() {
        return out;
    }
    let file = &loaded.file;
    let mut asserts: Vec<(&AssertSpec, String)> = Vec::new();
    for c in &file.checkpoints {
        if let Some(a) = &c.assert {
            asserts.push((a, format!("checkpoint `{}`", c.id.value)));
        }
        if let Some(a) = c.applies_to.as_ref().and_then(|s| s.evidence.as_ref()) {
            asserts.push((a, format!("`applies_to` of `{}`", c.id.value)));
        }
    }
    for c in &file.environment_constraints {
        if let Some(a) = &c.active_when {
            asserts.push((a, format!("`active_when` of `{}`", c.id.value)));
        }
    }
    if let Some(a) = file
        .task
        .as_ref()
        .and_then(|t| t.success.as_ref())
        .and_then(|s| s.value.evidence.as_ref())
    {
        asserts.push((a, "`task.success`".to_owned()));
    }
    for (a, owner) in asserts {
        let path = &a.path.value;
        if !path.starts_with('/') || documents.iter().any(|d| d.pointer(path).is_some()) {
            continue;
        }
        let hint = match nearest_key(path, &documents) {
            Some(key) => {
                format!("nearest existing key: `{key}`; fix the pointer or the evidence collector")
            }
            None => "no evidence file has this key; fix the pointer or the evidence collector"
                .to_owned(),
        };
        let origin = LoadedSuite::yaml_origin(a.path.referenced);
        out.push(
            loaded
                .diagnostic_at(
                    &origin,
                    false,
                    format!(
                        "`{path}` in {owner} resolves in no evidence file ({} checked)",
                        documents.len()
                    ),
                )
                .with_help(hint),
        );
    }
    out
}

fn read_documents(loaded: &LoadedSuite) -> Vec<Value> {
    let dir = loaded.file.evidence.as_ref().map(|e| loaded.dir.join(e));
    let mut paths: Vec<PathBuf> = Vec::new();
    for case in &loaded.cases {
        let e = &case.entry;
        let path = match (&e.evidence, &dir, &e.id) {
            (Some(p), _, _) => loaded.dir.join(p),
            (None, Some(d), Some(id)) => d.join(format!("{}.json", id.value)),
            _ => continue,
        };
        paths.push(path);
    }
    paths.sort();
    paths.dedup();
    let mut documents = Vec::new();
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        // A file that is not JSON is `lint`'s error from `runner::recorded`; here it only
        // has no keys.
        if let Ok(v) = serde_json::from_str::<Value>(&text) {
            documents.push(v);
        }
    }
    documents
}

/// The deepest prefix of `path` some document has, extended by the key
/// there that is closest to the next segment.
fn nearest_key(path: &str, documents: &[Value]) -> Option<String> {
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    for depth in (0..segments.len()).rev() {
        let prefix = segments[..depth]
            .iter()
            .fold(String::new(), |acc, s| acc + "/" + s);
        let keys: Vec<&str> = documents
            .iter()
            .filter_map(|d| d.pointer(&prefix))
            .filter_map(Value::as_object)
            .flat_map(|o| o.keys().map(String::as_str))
            .collect();
        let mut unique = keys.clone();
        unique.sort_unstable();
        unique.dedup();
        if let Some(key) = nearest(segments[depth], unique) {
            return Some(format!("{prefix}/{key}"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nearest_key_extends_the_deepest_existing_prefix() {
        let docs = [
            json!({"gold_actions": [], "reward": 1, "info": {"r_actions": 1}}),
            json!({"reward": 0, "info": {"r_outputs": 1}}),
        ];
        assert_eq!(
            nearest_key("/gold_bookz", &docs).as_deref(),
            Some("/gold_actions")
        );
        assert_eq!(
            nearest_key("/info/r_action", &docs).as_deref(),
            Some("/info/r_actions")
        );
        assert_eq!(nearest_key("/rewad/x", &docs).as_deref(), Some("/reward"));
        assert_eq!(nearest_key("/x", &[json!([1])]), None);
    }
}
