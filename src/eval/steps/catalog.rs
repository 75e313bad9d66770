//! The suite's tool catalog with every argument schema compiled once, and
//! argument validation with the outcomes the taxonomy tells apart.

use std::collections::BTreeMap;
use std::fmt;

use miette::Diagnostic;
use serde_json::Value;

use crate::spec::model::ToolSpec;
use crate::trace::SharedValue;

/// A catalog entry that cannot be used.
#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum CatalogError {
    #[error("the argument schema of tool `{tool}` (line {line}) does not compile")]
    #[diagnostic(
        code(agenteval::spec::tool_schema),
        help(
            "`tools[].schema` must be a JSON Schema (draft 2020-12 by default) with no external `$ref`"
        )
    )]
    InvalidSchema {
        tool: String,
        line: u64,
        column: u64,
        #[source]
        source: Box<jsonschema::ValidationError<'static>>,
    },
    #[error("tool `{tool}` is listed twice in `tools:` (lines {first_line} and {line})")]
    #[diagnostic(
        code(agenteval::spec::duplicate_tool),
        help("keep one entry per tool name")
    )]
    DuplicateTool {
        tool: String,
        first_line: u64,
        line: u64,
    },
}

struct CatalogTool {
    description: Option<String>,
    schema: Option<Value>,
    validator: Option<jsonschema::Validator>,
    line: u64,
}

/// Tools by name, schemas compiled.
#[derive(Default)]
pub struct ToolCatalog {
    tools: BTreeMap<String, CatalogTool>,
}

impl fmt::Debug for ToolCatalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolCatalog")
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// How an argument broke its schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ViolationKind {
    MissingRequired,
    TypeMismatch,
    /// Outside `enum`, or not the `const` value.
    EnumViolation,
    /// Any other keyword (`pattern`, `minimum`, `additionalProperties`, …).
    Other,
}

/// One schema violation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub kind: ViolationKind,
    /// JSON Pointer into the arguments (`""` for the whole object).
    pub path: String,
    pub message: String,
}

/// The outcome of checking one call's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgCheck {
    /// The tool is not in the catalog.
    UnknownTool,
    /// The tool is known but has no schema.
    NoSchema,
    Valid,
    /// Violations in the order the validator reported them.
    Invalid(Vec<Violation>),
}

impl ToolCatalog {
    /// Compile every tool's schema. Fails on the first schema that does not
    /// compile or the first repeated tool name, in catalog order.
    pub fn new(tools: &[ToolSpec]) -> Result<Self, CatalogError> {
        let mut map: BTreeMap<String, CatalogTool> = BTreeMap::new();
        for spec in tools {
            let name = spec.name.value.clone();
            let line = spec.name.referenced.line();
            if let Some(existing) = map.get(&name) {
                return Err(CatalogError::DuplicateTool {
                    tool: name,
                    first_line: existing.line,
                    line,
                });
            }
            let validator = match &spec.schema {
                Some(schema) => Some(jsonschema::validator_for(schema).map_err(|e| {
                    CatalogError::InvalidSchema {
                        tool: name.clone(),
                        line,
                        column: spec.name.referenced.column(),
                        source: Box::new(e),
                    }
                })?),
                None => None,
            };
            map.insert(
                name,
                CatalogTool {
                    description: spec.description.clone(),
                    schema: spec.schema.clone(),
                    validator,
                    line,
                },
            );
        }
        Ok(Self { tools: map })
    }

    /// A catalog with no tools: unknown-tool checks and validation are off.
    pub fn empty() -> Self {
        Self::default()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    pub fn contains(&self, tool: &str) -> bool {
        self.tools.contains_key(tool)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    pub fn description(&self, tool: &str) -> Option<&str> {
        self.tools.get(tool).and_then(|t| t.description.as_deref())
    }

    pub fn schema(&self, tool: &str) -> Option<&Value> {
        self.tools.get(tool).and_then(|t| t.schema.as_ref())
    }

    /// Validate `arguments` of a call to `tool`. Absent arguments (`null`)
    /// are checked as `{}`, so a missing object reads as missing keys.
    /// [`Self::validate`] of arguments as the trace keeps them: decoded only
    /// when the tool has a schema to check them against.
    pub fn validate_shared(&self, tool: &str, arguments: Option<&SharedValue>) -> ArgCheck {
        match self.tools.get(tool) {
            None => ArgCheck::UnknownTool,
            Some(entry) if entry.validator.is_none() => ArgCheck::NoSchema,
            Some(_) => match arguments {
                Some(a) => self.validate(tool, &a.value()),
                None => self.validate(tool, &Value::Null),
            },
        }
    }

    pub fn validate(&self, tool: &str, arguments: &Value) -> ArgCheck {
        let Some(entry) = self.tools.get(tool) else {
            return ArgCheck::UnknownTool;
        };
        let Some(validator) = &entry.validator else {
            return ArgCheck::NoSchema;
        };
        let empty = Value::Object(serde_json::Map::new());
        let instance = if arguments.is_null() {
            &empty
        } else {
            arguments
        };
        let violations: Vec<Violation> = validator
            .iter_errors(instance)
            .map(|e| {
                use jsonschema::error::ValidationErrorKind as K;
                let kind = match e.kind() {
                    K::Required { .. } => ViolationKind::MissingRequired,
                    K::Type { .. } => ViolationKind::TypeMismatch,
                    K::Enum { .. } | K::Constant { .. } => ViolationKind::EnumViolation,
                    _ => ViolationKind::Other,
                };
                Violation {
                    kind,
                    path: e.instance_path().as_str().to_owned(),
                    message: e.to_string(),
                }
            })
            .collect();
        if violations.is_empty() {
            ArgCheck::Valid
        } else {
            ArgCheck::Invalid(violations)
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    pub(crate) fn catalog(yaml: &str) -> Result<ToolCatalog, CatalogError> {
        let tools: Vec<ToolSpec> = serde_saphyr::from_str(yaml).unwrap();
        ToolCatalog::new(&tools)
    }

    const TOOLS: &str = "
- name: book
  schema:
    type: object
    required: [user_id, cabin]
    properties:
      user_id: {type: string}
      cabin: {enum: [economy, business]}
      seats: {type: integer, minimum: 1}
- name: ping
";

    #[test]
    fn each_violation_kind_is_told_apart() {
        let c = catalog(TOOLS).unwrap();
        assert_eq!(
            c.validate("book", &json!({"user_id": "u", "cabin": "economy"})),
            ArgCheck::Valid
        );
        let kinds = |args: Value| match c.validate("book", &args) {
            ArgCheck::Invalid(v) => v.into_iter().map(|v| (v.kind, v.path)).collect::<Vec<_>>(),
            other => panic!("expected violations, got {other:?}"),
        };
        assert_eq!(
            kinds(json!({"user_id": "u"})),
            [(ViolationKind::MissingRequired, String::new())]
        );
        assert_eq!(
            kinds(json!({"user_id": 7, "cabin": "economy"})),
            [(ViolationKind::TypeMismatch, "/user_id".to_owned())]
        );
        assert_eq!(
            kinds(json!({"user_id": "u", "cabin": "first"})),
            [(ViolationKind::EnumViolation, "/cabin".to_owned())]
        );
        assert_eq!(
            kinds(json!({"user_id": "u", "cabin": "economy", "seats": 0})),
            [(ViolationKind::Other, "/seats".to_owned())]
        );
        assert!(matches!(c.validate("book", &Value::Null), ArgCheck::Invalid(v) if v.len() == 2));
        assert_eq!(c.validate("ping", &json!({})), ArgCheck::NoSchema);
        assert_eq!(c.validate("nope", &json!({})), ArgCheck::UnknownTool);
    }

    #[test]
    fn bad_schemas_and_duplicates_are_reported_with_their_line() {
        let err = catalog("- name: a\n  schema: {type: 12}\n").unwrap_err();
        assert!(
            matches!(err, CatalogError::InvalidSchema { ref tool, line: 1, .. } if tool == "a"),
            "{err:?}"
        );
        let err = catalog("- name: a\n- name: b\n- name: a\n").unwrap_err();
        assert!(
            matches!(
                err,
                CatalogError::DuplicateTool {
                    first_line: 1,
                    line: 3,
                    ..
                }
            ),
            "{err:?}"
        );
    }
}
