//! clap's "did you mean" for a mistyped value or flag, minus the suggestions
//! that would switch the gate off: `--fail-on severe` must not answer
//! "a similar value exists: `never`", nor `--warn` "`--warn-only`". The
//! error itself (exit 64, the valid values) is unchanged.

use clap::error::{ContextKind, ContextValue, Error};

/// Values that turn a check off (`--fail-on never`, `--fdr off`).
const WEAKENING_VALUES: &[&str] = &["never", "off"];
/// Flags that make a failing gate pass.
const WEAKENING_FLAGS: &[&str] = &["--warn-only", "--allow-empty", "--allow-missing-baseline"];

/// `err` without a suggestion that weakens the gate.
pub(crate) fn without_weakening_suggestions(mut err: Error) -> Error {
    for (kind, weakening) in [
        (ContextKind::SuggestedValue, WEAKENING_VALUES),
        (ContextKind::SuggestedArg, WEAKENING_FLAGS),
    ] {
        let suggests_weakening = match err.get(kind) {
            Some(ContextValue::String(s)) => weakening.contains(&s.as_str()),
            Some(ContextValue::Strings(list)) => {
                list.iter().any(|s| weakening.contains(&s.as_str()))
            }
            _ => false,
        };
        if suggests_weakening {
            err.remove(kind);
            if kind == ContextKind::SuggestedArg {
                // clap's usage line for an unknown flag is built with the suggestion in it.
                err.remove(ContextKind::Usage);
            }
        }
    }
    err
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::app::cli::Cli;

    fn rendered(args: &[&str]) -> String {
        let err = Cli::try_parse_from(args).unwrap_err();
        without_weakening_suggestions(err).render().to_string()
    }

    #[test]
    fn no_suggestion_switches_the_gate_off() {
        let severe = rendered(&["agenteval-gate", "compare", "--fail-on", "severe"]);
        assert!(severe.contains("invalid value 'severe'"), "{severe}");
        assert!(
            severe.contains("[possible values: critical, high, medium, low, never]"),
            "{severe}"
        );
        assert!(!severe.contains("similar"), "{severe}");
        let warn = rendered(&["agenteval-gate", "compare", "--warn"]);
        assert!(warn.contains("unexpected argument '--warn'"), "{warn}");
        assert!(!warn.contains("--warn-only"), "{warn}");
        assert!(!rendered(&["agenteval-gate", "compare", "--fdr", "of"]).contains("exists: 'off'"));
    }

    #[test]
    fn harmless_suggestions_stay() {
        let high = rendered(&["agenteval-gate", "compare", "--fail-on", "hihg"]);
        assert!(high.contains("a similar value exists: 'high'"), "{high}");
        let suite = rendered(&["agenteval-gate", "compare", "--suites", "x"]);
        assert!(
            suite.contains("a similar argument exists: '--suite'"),
            "{suite}"
        );
    }
}
