//! The JSON Schema of `suite.yaml`, generated from [`crate::spec::model::SuiteFile`].
//! Checked in as `schema/suite.schema.json`; a test fails when it is stale.

use crate::spec::model::SuiteFile;

/// Pretty JSON of the suite schema, with a trailing newline.
pub fn suite_schema_json() -> String {
    let schema = schemars::schema_for!(SuiteFile);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}
