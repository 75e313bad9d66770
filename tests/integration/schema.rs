//! The checked-in JSON Schema of `suite.yaml` must match the Rust types.
//! Regenerate with `UPDATE_SCHEMA=1 cargo test --test integration schema`.

use std::path::PathBuf;

#[test]
fn suite_schema_is_fresh() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schema/suite.schema.json");
    let generated = agenteval_gate::spec::suite_schema_json();
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "schema/suite.schema.json is stale: run `UPDATE_SCHEMA=1 cargo test --test integration schema` and commit it"
    );
}

#[test]
fn example_suites_validate_against_the_schema() {
    let schema: serde_json::Value =
        serde_json::from_str(&agenteval_gate::spec::suite_schema_json()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let suites = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("suites");
    let mut checked = 0;
    for entry in std::fs::read_dir(&suites).into_iter().flatten().flatten() {
        let p = entry.path().join("suite.yaml");
        if !p.is_file() {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let value: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{} does not match the schema: {errors:#?}",
            p.display()
        );
        checked += 1;
    }
    assert!(
        checked >= 2,
        "expected the bundled example suites, found {checked}"
    );
}
