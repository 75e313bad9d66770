//! Lint: a regex on JSON text that names several keys in one order.

/// The distinct JSON keys a regex spells out in sequence (`"name"`
/// followed by `:`, or after `,` or `{`), when there are two or more:
/// whether it matches depends on key order.
pub(super) fn key_order_dependent(pattern: &str) -> Option<String> {
    let quoted = regex::Regex::new(r#""([A-Za-z0-9_.-]+)""#).ok()?;
    let spacing = |s: &str| {
        s.trim_start_matches(|c: char| c.is_whitespace())
            .trim_start_matches("\\s*")
            .trim_start_matches("\\s?")
            .trim_start_matches(' ')
            .to_owned()
    };
    let mut keys: Vec<&str> = Vec::new();
    for c in quoted.captures_iter(pattern) {
        let (Some(all), Some(name)) = (c.get(0), c.get(1)) else {
            continue;
        };
        let after = spacing(&pattern[all.end()..]);
        let before: String = spacing(&pattern[..all.start()].chars().rev().collect::<String>());
        let is_key = after.starts_with(':') || before.starts_with([',', '{']);
        if is_key && !keys.contains(&name.as_str()) {
            keys.push(name.as_str());
        }
    }
    (keys.len() >= 2).then(|| {
        keys.iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    })
}

#[cfg(test)]
mod tests {
    use super::key_order_dependent;

    #[test]
    fn key_order_dependent_regexes_are_spotted() {
        assert_eq!(
            key_order_dependent(r#""user_id":"u1","origin""#).as_deref(),
            Some("`user_id`, `origin`")
        );
        assert_eq!(
            key_order_dependent(r#""user_id":"u1","origin":"JFK""#).as_deref(),
            Some("`user_id`, `origin`")
        );
        assert!(key_order_dependent(r#""user_id":\s*"u1".*"origin"\s*:"#).is_some());
        // One key, repeated: order does not matter.
        assert_eq!(key_order_dependent(r#"("first_name".*){6}"#), None);
        assert_eq!(
            key_order_dependent(
                r#"("payment_id":"certificate_[^"]*".*){2}|("payment_id":"credit_card_[^"]*".*){2}"#
            ),
            None
        );
    }
}
