//! The diagnostics sink shared by the validation passes.

use serde_saphyr::{Location, Spanned};

use crate::diagnostic::FileDiagnostic;
use crate::spec::load::{LoadedSuite, Origin};

pub(super) struct Ctx<'a> {
    pub(super) loaded: &'a LoadedSuite,
    pub(super) diagnostics: Vec<FileDiagnostic>,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(loaded: &'a LoadedSuite) -> Self {
        Self {
            loaded,
            diagnostics: Vec::new(),
        }
    }

    /// An error at a YAML location in `suite.yaml`.
    pub(super) fn error(
        &mut self,
        at: Location,
        message: impl Into<String>,
        help: impl Into<String>,
    ) {
        self.push_yaml(at, true, message.into(), help.into());
    }

    pub(super) fn warning(
        &mut self,
        at: Location,
        message: impl Into<String>,
        help: impl Into<String>,
    ) {
        self.push_yaml(at, false, message.into(), help.into());
    }

    /// An error at a case origin (suite.yaml or an included JSONL line).
    pub(super) fn error_at_origin(
        &mut self,
        origin: &Origin,
        message: impl Into<String>,
        help: impl Into<String>,
    ) {
        let d = self
            .loaded
            .diagnostic_at(origin, true, message)
            .with_help(help);
        self.diagnostics.push(d);
    }

    pub(super) fn warning_at_origin(
        &mut self,
        origin: &Origin,
        message: impl Into<String>,
        help: impl Into<String>,
    ) {
        let d = self
            .loaded
            .diagnostic_at(origin, false, message)
            .with_help(help);
        self.diagnostics.push(d);
    }

    fn push_yaml(&mut self, at: Location, error: bool, message: String, help: String) {
        let origin = LoadedSuite::yaml_origin(at);
        let d = self
            .loaded
            .diagnostic_at(&origin, error, message)
            .with_help(help);
        self.diagnostics.push(d);
    }
}

/// The location of a spanned value (where it is used).
pub(super) fn loc<T>(s: &Spanned<T>) -> Location {
    s.referenced
}

/// The candidate closest to `word` (Jaro–Winkler), however far.
pub(super) fn nearest<'c>(
    word: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    crate::output::closest(word, candidates, f64::NEG_INFINITY)
}

/// ` (did you mean `x`?)` when a candidate is close to `word`, else empty.
pub(super) fn did_you_mean<'c>(
    word: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> String {
    crate::output::closest(word, candidates, crate::output::SIMILAR)
        .map_or_else(String::new, |c| format!(" (did you mean `{c}`?)"))
}
