//! The template environment: templates compiled in, HTML auto-escaping for
//! every template, strict undefined variables, and a Content Security Policy
//! that allows only the page's own inline script (by hash) and styles.

use std::sync::LazyLock;

use minijinja::{AutoEscape, Environment, UndefinedBehavior, Value};
use serde::Serialize;
use sha2::{Digest, Sha256};

/// The page's only script: filtering the matrix, expanding case details.
pub(crate) const SCRIPT: &str = include_str!("templates/report.js");

const TEMPLATES: [(&str, &str); 5] = [
    ("base.html", include_str!("templates/base.html")),
    ("macros.html", include_str!("templates/macros.html")),
    ("compare.html", include_str!("templates/compare.html")),
    ("run.html", include_str!("templates/run.html")),
    ("style.css.html", include_str!("templates/style.css.html")),
];

static ENV: LazyLock<Result<Environment<'static>, minijinja::Error>> = LazyLock::new(|| {
    let mut env = Environment::new();
    // Every template is HTML, whatever its name: nothing is ever emitted unescaped.
    env.set_auto_escape_callback(|_| AutoEscape::Html);
    // HTML's rules here: a control character or bidi override in a string
    // becomes a visible escape (`\u{202e}`), never raw text that reorders
    // the page or reaches a terminal; then HTML escaping.
    env.set_formatter(|out, state, value| {
        if !value.is_safe()
            && let Some(s) = value.as_str()
            && let std::borrow::Cow::Owned(shown) = crate::output::terminal_text(s)
        {
            return minijinja::escape_formatter(out, state, &Value::from(shown));
        }
        minijinja::escape_formatter(out, state, value)
    });
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_syntax(
        minijinja::syntax::SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()?,
    );
    for (name, source) in TEMPLATES {
        env.add_template(name, source)?;
    }
    Ok(env)
});

/// Render `template` with `page` as the context `page`, plus the script and its CSP hash.
pub(crate) fn render<T: Serialize>(template: &str, page: &T) -> Result<String, minijinja::Error> {
    let env = ENV.as_ref().map_err(|e| {
        minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, e.to_string())
    })?;
    let tmpl = env.get_template(template)?;
    let mut out = tmpl.render(minijinja::context! {
        page => Value::from(minijinja::value::Serde(page)),
        // Static text of ours, not data: marked safe so the script survives intact.
        script => Value::from_safe_string(SCRIPT.to_owned()),
        script_hash => script_hash(),
    })?;
    out.push('\n');
    Ok(out)
}

/// `sha256-…` of the inline script, for the CSP `script-src`.
pub(crate) fn script_hash() -> String {
    format!("sha256-{}", base64(&Sha256::digest(SCRIPT.as_bytes())))
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_vectors() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), expected);
        }
    }

    #[test]
    fn every_template_compiles() {
        let env = ENV.as_ref().expect("templates compile");
        for (name, _) in TEMPLATES {
            assert!(env.get_template(name).is_ok(), "{name}");
        }
    }
}
