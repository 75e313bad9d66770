//! Texts that many steps share, kept once: notes and scorer names.
//!
//! The rules give every step of a tool they cannot check the same note
//! (`` `Read` is not in the tool catalog, so it has no schema ``), and a
//! report read back has the same few notes on most of its steps: a large
//! trace calls a few tools hundreds of thousands of times, and a note a
//! step was an allocation a step, 20 MB of a 61 MB telemetry file's peak
//! (issue 25); so was a `scored_by` of `rules` a step (12 MB of a
//! baseline of 375,000 steps). Such texts are kept once for the life of
//! the process, up to a bound; past it each step has its own copy.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};

/// Notes longer than this are not kept: a tool name is untrusted text.
const LONGEST: usize = 256;
/// Bytes of notes kept in all.
const BUDGET: usize = 1 << 20;

struct Kept {
    notes: BTreeSet<&'static str>,
    bytes: usize,
}

static KEPT: Mutex<Kept> = Mutex::new(Kept {
    notes: BTreeSet::new(),
    bytes: 0,
});

/// `note`, as the copy kept for every step that has it.
pub(crate) fn shared(note: String) -> Cow<'static, str> {
    keep(&note).map_or(Cow::Owned(note), Cow::Borrowed)
}

/// [`shared`] of a borrowed text, copied only when it is not kept.
pub(crate) fn shared_str(note: &str) -> Cow<'static, str> {
    keep(note).map_or_else(|| Cow::Owned(note.to_owned()), Cow::Borrowed)
}

/// The kept copy of `note`, made if there is room; `None` when there is
/// none or the note is too long to keep.
fn keep(note: &str) -> Option<&'static str> {
    if note.len() > LONGEST {
        return None;
    }
    let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&text) = kept.notes.get(note) {
        return Some(text);
    }
    if kept.bytes + note.len() > BUDGET {
        return None;
    }
    kept.bytes += note.len();
    // Kept for the life of the process, within `BUDGET`.
    let text: &'static str = Box::leak(note.to_owned().into_boxed_str());
    kept.notes.insert(text);
    Some(text)
}

/// A step's notes or `scored_by` as read from a report: kept once when
/// another step has the same ([`shared`]).
pub(crate) fn deserialize<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Cow<'static, str>, D::Error> {
    struct Note;
    impl serde::de::Visitor<'_> for Note {
        type Value = Cow<'static, str>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a string")
        }

        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(if v.is_empty() {
                Cow::Borrowed("")
            } else {
                shared_str(v)
            })
        }

        fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
            Ok(if v.is_empty() {
                Cow::Borrowed("")
            } else {
                shared(v)
            })
        }
    }
    d.deserialize_str(Note)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_given_twice_is_one_copy() {
        let a = shared(String::from(
            "`x` has no argument schema in the catalog (notes test)",
        ));
        let b = shared(String::from(
            "`x` has no argument schema in the catalog (notes test)",
        ));
        assert_eq!(a, b);
        let (Cow::Borrowed(a), Cow::Borrowed(b)) = (a, b) else {
            panic!("not kept");
        };
        assert!(std::ptr::eq(a, b));
        let long = "y".repeat(LONGEST + 1);
        assert!(matches!(shared(long.clone()), Cow::Owned(text) if text == long));
        assert!(matches!(shared_str(&long), Cow::Owned(text) if text == long));
    }

    #[derive(serde::Deserialize)]
    struct Step {
        #[serde(deserialize_with = "super::deserialize")]
        notes: Cow<'static, str>,
    }

    /// Notes read from a report are one copy per text, read as they were
    /// written (escapes included), and strings only.
    #[test]
    fn notes_read_back_are_kept_once() {
        let read = |json: &str| serde_json::from_str::<Step>(json).map(|s| s.notes);
        let a = read(r#"{"notes": "the tool ran (notes read test)"}"#).unwrap();
        let b = read(r#"{"notes": "the tool ran (notes read test)"}"#).unwrap();
        let (Cow::Borrowed(a), Cow::Borrowed(b)) = (a, b) else {
            panic!("not kept");
        };
        assert!(std::ptr::eq(a, b));
        assert_eq!(
            read(r#"{"notes": "a \"quoted\"\nline"}"#).unwrap(),
            "a \"quoted\"\nline"
        );
        assert_eq!(read(r#"{"notes": ""}"#).unwrap(), "");
        let long = "z".repeat(LONGEST + 1);
        assert_eq!(read(&format!(r#"{{"notes": "{long}"}}"#)).unwrap(), long);
        let error = read(r#"{"notes": 3}"#).unwrap_err().to_string();
        assert!(
            error.starts_with("invalid type: integer `3`, expected a string"),
            "{error}"
        );
        // The same text from a reader (no borrowed input) and with escapes.
        let from_reader = |json: &str| {
            serde_json::from_reader::<_, Step>(json.as_bytes())
                .unwrap()
                .notes
        };
        for json in [r#"{"notes": "rules"}"#, r#"{"notes": "rul\u0065s"}"#] {
            assert!(
                matches!(from_reader(json), Cow::Borrowed("rules")),
                "{json}"
            );
            assert!(
                matches!(read(json).unwrap(), Cow::Borrowed("rules")),
                "{json}"
            );
        }
    }
}
