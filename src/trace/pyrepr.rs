//! Python literals as `repr` writes them, read into JSON values.
//!
//! opentelemetry-instrumentation-openai-agents-v2 0.1.0 records the model's
//! answer in `gen_ai.output.messages` as one text part whose content is the
//! Python `repr` of the SDK's `ChatCompletionMessage` dict
//! (`{'content': None, …, 'tool_calls': [{'id': 'call_1_0', 'function':
//! {'arguments': '{}', 'name': 'transfer_to_weather_agent'}, …}]}`), not
//! JSON (issue 22 item 4). This reads exactly the literals `repr` writes for
//! such values: dicts, lists, tuples (as lists), strings in either quote with
//! Python's escapes, integers, finite floats, `None`, `True` and `False`.
//! Anything else (`inf`, bytes, sets, objects, trailing text) is `None`: the
//! text is then kept as text.

use serde_json::{Map, Number, Value};

/// Deepest nesting read; deeper text is not a message.
const MAX_DEPTH: usize = 64;

/// The value of a Python literal that spans all of `text` (surrounding
/// whitespace aside), or `None`.
pub(crate) fn parse(text: &str) -> Option<Value> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        at: 0,
    };
    let value = p.value(0)?;
    p.skip_ws();
    (p.at == p.s.len()).then_some(value)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.s.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.skip_ws();
        let hit = self.s.get(self.at) == Some(&b);
        if hit {
            self.at += 1;
        }
        hit
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.skip_ws();
        match *self.s.get(self.at)? {
            b'{' => self.dict(depth),
            b'[' => self.sequence(b']', depth),
            b'(' => self.sequence(b')', depth),
            q @ (b'\'' | b'"') => self.string(q).map(Value::String),
            _ => self.scalar(),
        }
    }

    fn dict(&mut self, depth: usize) -> Option<Value> {
        self.at += 1;
        let mut map = Map::new();
        if self.eat(b'}') {
            return Some(Value::Object(map));
        }
        loop {
            self.skip_ws();
            let q = *self.s.get(self.at)?;
            if q != b'\'' && q != b'"' {
                return None;
            }
            let key = self.string(q)?;
            if !self.eat(b':') {
                return None;
            }
            let value = self.value(depth + 1)?;
            map.insert(key, value);
            if self.eat(b'}') {
                return Some(Value::Object(map));
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    /// A list or a tuple (`(3,)` included), closed by `close`.
    fn sequence(&mut self, close: u8, depth: usize) -> Option<Value> {
        self.at += 1;
        let mut items = Vec::new();
        if self.eat(close) {
            return Some(Value::Array(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            if self.eat(close) {
                return Some(Value::Array(items));
            }
            if !self.eat(b',') {
                return None;
            }
            if self.eat(close) {
                return Some(Value::Array(items));
            }
        }
    }

    /// A string in quote `q`, with Python's escapes; the opening quote is at
    /// `self.at`.
    fn string(&mut self, q: u8) -> Option<String> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let start = self.at;
            while let Some(&b) = self.s.get(self.at) {
                if b == q || b == b'\\' || b == b'\n' {
                    break;
                }
                self.at += 1;
            }
            out.push_str(self.text.get(start..self.at)?);
            match *self.s.get(self.at)? {
                b'\\' => {
                    self.at += 1;
                    self.escape(&mut out)?;
                }
                b'\n' => return None,
                _ => {
                    self.at += 1;
                    return Some(out);
                }
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Option<()> {
        let b = *self.s.get(self.at)?;
        self.at += 1;
        let c = match b {
            b'\\' => '\\',
            b'\'' => '\'',
            b'"' => '"',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'x' => self.hex(2)?,
            b'u' => self.hex(4)?,
            b'U' => self.hex(8)?,
            // `repr` writes no other escape; an unknown one is not `repr`.
            _ => return None,
        };
        out.push(c);
        Some(())
    }

    /// `n` hex digits as one character. A lone surrogate (`'\ud83d'`, which
    /// Python strings can hold) becomes U+FFFD, as JSON text could not carry it.
    fn hex(&mut self, n: usize) -> Option<char> {
        let digits = self.text.get(self.at..self.at + n)?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        self.at += n;
        let code = u32::from_str_radix(digits, 16).ok()?;
        if (0xD800..0xE000).contains(&code) {
            return Some(char::REPLACEMENT_CHARACTER);
        }
        char::from_u32(code)
    }

    fn scalar(&mut self) -> Option<Value> {
        let start = self.at;
        while self
            .s
            .get(self.at)
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.' | b'_'))
        {
            self.at += 1;
        }
        let word = self.text.get(start..self.at)?;
        match word {
            "None" => Some(Value::Null),
            "True" => Some(Value::Bool(true)),
            "False" => Some(Value::Bool(false)),
            _ => number(word),
        }
    }
}

/// An integer or a finite float as Python writes them (`1e+100`, `-0.0`);
/// integers beyond 64 bits become floats.
fn number(word: &str) -> Option<Value> {
    let first = word.trim_start_matches('-').bytes().next()?;
    if !first.is_ascii_digit() {
        return None;
    }
    if let Ok(i) = word.parse::<i64>() {
        return Some(Value::Number(i.into()));
    }
    if let Ok(u) = word.parse::<u64>() {
        return Some(Value::Number(u.into()));
    }
    let f: f64 = word.parse().ok()?;
    Number::from_f64(f)
        .filter(|_| f.is_finite())
        .map(Value::Number)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Any text, including near-literals, is read or refused, never a
        /// panic (slices are taken with `get`, depth is capped).
        #[test]
        fn any_text_is_read_or_refused(body in "[{}\\[\\]()'\",:\\\\ uxUN0-9a-fA-FTrueFalsNon.+-]{0,80}") {
            let text = format!("{{'k': {body}");
            let _ = parse(&text);
            let _ = parse(&body);
        }
    }

    /// Pairs of lines written by Python: `repr(value)`, then
    /// `json.dumps(value)` (`testdata/make_pyrepr.py`).
    #[test]
    fn reads_what_python_repr_writes() {
        let text = include_str!("testdata/pyrepr.txt");
        let lines: Vec<&str> = text.split('\n').filter(|l| !l.is_empty()).collect();
        assert_eq!(lines.len(), 6);
        for pair in lines.chunks(2) {
            let want: Value = serde_json::from_str(pair[1]).unwrap();
            assert_eq!(parse(pair[0]), Some(want), "{}", pair[0]);
        }
    }

    #[test]
    fn what_repr_does_not_write_is_not_read() {
        for text in [
            "",
            "{'a': 1} trailing",
            "{'a': inf}",
            "{'a': nan}",
            "{1: 2}",
            "{'a' 1}",
            "[1, 2",
            "'unterminated",
            "'bad \\q escape'",
            "'line\nbreak'",
            "b'bytes'",
            "{'a', 'b'}",
            "datetime.date(2026, 1, 1)",
            "'\\x4'",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 2), "]".repeat(MAX_DEPTH + 2));
        assert_eq!(parse(&deep), None);
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&ok).is_some());
    }
}
