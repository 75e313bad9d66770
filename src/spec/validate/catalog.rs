//! The tool catalog (`tools:`): unique names and argument schemas that
//! compile. Matchers are linted against it.

use std::collections::BTreeMap;

use serde_json::Value;

use super::context::{Ctx, loc};

/// Tool names and their argument schemas (only those that compile).
#[derive(Debug, Default)]
pub(super) struct Catalog {
    pub(super) tools: BTreeMap<String, Option<Value>>,
}

impl Catalog {
    pub(super) fn contains(&self, name: &str) -> bool {
        self.tools.contains_key(name)
    }

    pub(super) fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }
}

pub(super) fn tools(cx: &mut Ctx<'_>) -> Catalog {
    let mut catalog = Catalog::default();
    let mut first_lines = BTreeMap::new();
    for tool in &cx.loaded.file.tools {
        let name = &tool.name.value;
        if let Some(first_line) = first_lines.insert(name.clone(), tool.name.referenced.line()) {
            cx.error(
                loc(&tool.name),
                format!("tool `{name}` is defined twice (first at line {first_line})"),
                "keep one definition per tool",
            );
            continue;
        }
        let schema = match &tool.schema {
            Some(schema) => match jsonschema::validator_for(schema) {
                Ok(_) => Some(schema.clone()),
                Err(e) => {
                    cx.error(
                        loc(&tool.name),
                        format!("the JSON Schema of tool `{name}` is invalid: {e}"),
                        "`schema:` must be a JSON Schema for the tool's arguments, e.g. `{type: object, properties: {…}}`",
                    );
                    None
                }
            },
            None => None,
        };
        catalog.tools.insert(name.clone(), schema);
    }
    catalog
}
