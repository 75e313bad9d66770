//! The normalised message of a critique: what stays the same when the same
//! problem recurs in another case. Applied in this order, so the result is
//! a pure function of the text:
//!
//! 1. quoted values (`` `…` ``, `"…"`, and `'…'` that opens after a space or
//!    punctuation) become `<v>`;
//! 2. UUIDs and runs of 6+ hex digits that hold a digit (span ids, hashes)
//!    become `<id>`;
//! 3. numbers (with thousands separators, decimals, a leading `$`) become
//!    `<n>`, also inside ids such as `A-9999` → `A-<n>`;
//! 4. whitespace collapses to one space, the text is lower-cased, trimmed
//!    and cut to [`MESSAGE_CHARS`] characters (the last one `…`).

use std::sync::LazyLock;

use regex::Regex;

/// Longest normalised message kept.
pub(crate) const MESSAGE_CHARS: usize = 200;

static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
    #[expect(clippy::expect_used, reason = "a constant pattern")]
    Regex::new(r#"`[^`]*`|"[^"]*"|(?:^|[\s(\[{:=,])'[^'\n]*'"#).expect("valid regex")
});
static UUID: LazyLock<Regex> = LazyLock::new(|| {
    #[expect(clippy::expect_used, reason = "a constant pattern")]
    Regex::new(r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
        .expect("valid regex")
});
static HEX: LazyLock<Regex> = LazyLock::new(|| {
    #[expect(clippy::expect_used, reason = "a constant pattern")]
    Regex::new(r"(?i)\b(?:0x)?[0-9a-f]{6,}\b").expect("valid regex")
});
static NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    #[expect(clippy::expect_used, reason = "a constant pattern")]
    Regex::new(r"\$?\d+(?:,\d{3})*(?:\.\d+)?").expect("valid regex")
});
static SPACE: LazyLock<Regex> = LazyLock::new(|| {
    #[expect(clippy::expect_used, reason = "a constant pattern")]
    Regex::new(r"\s+").expect("valid regex")
});

/// The grouping form of `message` (see the module docs).
pub(crate) fn normalize_message(message: &str) -> String {
    let quoted = QUOTED.replace_all(message, |c: &regex::Captures<'_>| {
        let m = &c[0];
        // Keep the character before a single-quoted value.
        match m.chars().next() {
            Some(first) if first != '\'' && first != '`' && first != '"' => format!("{first}<v>"),
            _ => "<v>".to_owned(),
        }
    });
    let uuid = UUID.replace_all(&quoted, "<id>");
    let hex = HEX.replace_all(&uuid, |c: &regex::Captures<'_>| {
        if c[0].bytes().any(|b| b.is_ascii_digit()) {
            "<id>".to_owned()
        } else {
            c[0].to_owned()
        }
    });
    let numbers = NUMBER.replace_all(&hex, "<n>");
    let spaced = SPACE.replace_all(numbers.trim(), " ");
    let lower = spaced.to_lowercase();
    if lower.chars().count() <= MESSAGE_CHARS {
        return lower;
    }
    let mut cut: String = lower.chars().take(MESSAGE_CHARS - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::normalize_message as n;

    #[test]
    fn numbers_ids_and_quoted_values_normalise() {
        assert_eq!(
            n(
                "tool `issue_refund` (span 33d86397eb11333a) (position 7) ran with no call to `issue_refund` before it"
            ),
            "tool <v> (span <id>) (position <n>) ran with no call to <v> before it"
        );
        assert_eq!(
            n("the tool span failed: account A-9999 not found"),
            n("the tool span failed: account A-17 not found")
        );
        assert_eq!(
            n("2 schema violations: \"approval_id\" is a required property"),
            "<n> schema violations: <v> is a required property"
        );
        assert_eq!(
            n("amount must be a number, got str '40'"),
            "amount must be a number, got str <v>"
        );
        // An apostrophe inside a word is not a quote.
        assert_eq!(n("couldn't find it"), "couldn't find it");
        assert_eq!(
            n("id 123e4567-e89b-12d3-a456-426614174000 \n\t ok"),
            "id <id> ok"
        );
        // Words made of hex letters only stay words.
        assert_eq!(n("added a decade"), "added a decade");
        assert_eq!(n("refund of $1,234.50 queued"), "refund of <n> queued");
    }

    #[test]
    fn different_problems_stay_apart() {
        assert_ne!(
            n("selected `x` that the workflow schema does not call for"),
            n("the tool span failed: timeout")
        );
    }

    #[test]
    fn long_messages_are_capped() {
        let long = "word ".repeat(200);
        let cut = n(&long);
        assert_eq!(cut.chars().count(), super::MESSAGE_CHARS);
        assert!(cut.ends_with('…'));
    }
}
