//! Notes that many steps share, kept once.
//!
//! The rules give every step of a tool they cannot check the same note
//! (`` `Read` is not in the tool catalog, so it has no schema ``): a large
//! trace calls a few tools hundreds of thousands of times, and a note a
//! step was an allocation a step, 20 MB of a 61 MB telemetry file's peak
//! (issue 25). Such notes are kept once for the life of the process, up to
//! a bound; past it each step has its own copy, as before.

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
    if note.len() > LONGEST {
        return Cow::Owned(note);
    }
    let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&text) = kept.notes.get(note.as_str()) {
        return Cow::Borrowed(text);
    }
    if kept.bytes + note.len() > BUDGET {
        return Cow::Owned(note);
    }
    kept.bytes += note.len();
    // Kept for the life of the process, within `BUDGET`.
    let text: &'static str = Box::leak(note.into_boxed_str());
    kept.notes.insert(text);
    Cow::Borrowed(text)
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
    }
}
