//! Baseline and suite names become directory and file names
//! (`baselines/<name>/<suite>.json`): anything that could leave the
//! baselines directory or is not a plain file name is refused, wherever a
//! name comes from (a flag, an environment variable, a saved report).

use crate::baseline::BaselineError;

/// What a checked name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    Baseline,
    Suite,
}

impl NameKind {
    fn as_str(self) -> &'static str {
        match self {
            Self::Baseline => "baseline name",
            Self::Suite => "suite name",
        }
    }
}

/// Longest name: `<suite>.history.jsonl` must still fit a file name.
pub(crate) const MAX_NAME_BYTES: usize = 200;

/// `Ok` for 1–200 bytes of ASCII letters, digits, `-`, `_` and `.`, not
/// starting with `.` (so never `.`, `..` or a hidden file).
pub fn check_name(kind: NameKind, name: &str) -> Result<(), BaselineError> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME_BYTES
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(BaselineError::InvalidName {
            kind: kind.as_str(),
            name: name.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_leave_the_baselines_directory() {
        for ok in ["main", "release-1.2", "v_2", "a.b"] {
            assert!(check_name(NameKind::Baseline, ok).is_ok(), "{ok}");
        }
        for bad in [
            "", ".", "..", "../../x", "a/b", "a\\b", ".hidden", "a b", "x\0", "é",
        ] {
            let err = check_name(NameKind::Baseline, bad).unwrap_err();
            assert_eq!(err.exit_code(), crate::exit_code::ExitCode::Usage, "{bad}");
        }
        assert!(check_name(NameKind::Suite, &"s".repeat(201)).is_err());
    }
}
