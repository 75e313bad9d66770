//! Span and trace ids in the shapes agents write them: hex (any case, with
//! or without `0x`), base64 (generic protobuf JSON), decimal integers of up
//! to 128 bits (Python SDK dumps), and free-form strings.
//!
//! Decimal ids are kept as their exact decimal text: they come from
//! [`RawValue`] so no digit is lost to a float conversion.

use std::fmt::Write as _;

use serde_json::value::RawValue;

use crate::model::ShortText;

/// Normalise an id written as a string. `None` for ids that mean "no id":
/// empty, or all zeros (the OTLP encoding of "no parent").
pub(crate) fn normalize_id(raw: &str) -> Option<ShortText> {
    let s = raw.trim();
    let hex = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if hex.is_empty() {
        return None;
    }
    if hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        if hex.bytes().all(|b| b == b'0') {
            return None;
        }
        let mut id = ShortText::from(hex);
        id.make_ascii_lowercase();
        return Some(id);
    }
    // Only the padded canonical lengths (8 bytes → 12 chars, 16 → 24), so a
    // free-form id is never mistaken for base64.
    let canonical_b64 = (s.len() == 12 && s.ends_with('=')) || (s.len() == 24 && s.ends_with("=="));
    if canonical_b64
        && let Some(bytes) = base64_decode(s)
        && (bytes.len() == 8 || bytes.len() == 16)
    {
        if bytes.iter().all(|b| *b == 0) {
            return None;
        }
        return Some(
            bytes
                .iter()
                .fold(ShortText::with_capacity(bytes.len() * 2), |mut hex, b| {
                    let _ = write!(hex, "{b:02x}");
                    hex
                }),
        );
    }
    Some(s.into())
}

/// An id as it appears in JSON: a string (normalised by [`normalize_id`]),
/// an integer (kept as exact decimal text), or `null`.
///
/// Returns `Err` with a description when the value cannot be an id.
pub(crate) fn id_from_raw(raw: &RawValue) -> Result<Option<ShortText>, String> {
    let text = raw.get().trim();
    match text.as_bytes().first() {
        Some(b'"') => {
            let s: String = serde_json::from_str(text).map_err(|e| e.to_string())?;
            Ok(normalize_id(&s))
        }
        Some(b'n') if text == "null" => Ok(None),
        Some(b) if b.is_ascii_digit() => {
            if text.bytes().all(|b| b.is_ascii_digit()) {
                Ok((!text.bytes().all(|b| b == b'0')).then(|| text.into()))
            } else {
                Err(format!("`{text}` is not an integer id"))
            }
        }
        _ => Err(format!("`{}` cannot be an id", short(text))),
    }
}

/// An id held in a parsed JSON value (string or integer).
pub(crate) fn id_from_value(value: &serde_json::Value) -> Option<ShortText> {
    match value {
        serde_json::Value::String(s) => normalize_id(s),
        serde_json::Value::Number(n) => {
            let text = compact_str::ToCompactString::to_compact_string(n);
            (text != "0").then_some(text)
        }
        _ => None,
    }
}

fn short(text: &str) -> String {
    let mut out: String = text.chars().take(40).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// Decode standard or URL-safe base64 (padding optional). `None` when the
/// text is not base64.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let trimmed = text.trim_end_matches('=');
    if trimmed.is_empty() || trimmed.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(trimmed.len() * 3 / 4);
    let mut buffer: u32 = 0;
    let mut bits = 0;
    for c in trimmed.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        buffer = (buffer << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[test]
    fn hex_ids_are_lower_cased_and_zero_means_none() {
        assert_eq!(
            normalize_id("EEE19B7EC3C1B174").as_deref(),
            Some("eee19b7ec3c1b174")
        );
        assert_eq!(
            normalize_id("0x6c80880dbeb609e2").as_deref(),
            Some("6c80880dbeb609e2")
        );
        assert_eq!(normalize_id("0000000000000000"), None);
        assert_eq!(normalize_id(""), None);
        assert_eq!(normalize_id("call_abc").as_deref(), Some("call_abc"));
    }

    #[test]
    fn base64_ids_become_hex() {
        // 8 bytes 0x0102030405060708 in base64.
        assert_eq!(
            normalize_id("AQIDBAUGBwg=").as_deref(),
            Some("0102030405060708")
        );
    }

    #[test]
    fn decimal_ids_keep_every_digit_beyond_u64() {
        let id = id_from_raw(&raw("273475590164507581703505203264503192396")).unwrap();
        assert_eq!(
            id.as_deref(),
            Some("273475590164507581703505203264503192396")
        );
        assert_eq!(
            id_from_raw(&raw("17348474965005769013"))
                .unwrap()
                .as_deref(),
            Some("17348474965005769013")
        );
        assert_eq!(id_from_raw(&raw("null")).unwrap(), None);
        assert_eq!(
            id_from_raw(&raw("\"ABC\"")).unwrap().as_deref(),
            Some("abc")
        );
        assert!(id_from_raw(&raw("1.5e3")).is_err());
        assert!(id_from_raw(&raw("{}")).is_err());
    }
}
