//! A step's `scored_by` as read.

use std::borrow::Cow;
use std::fmt;

/// A step's `scored_by` as read: `rules` and `none`, the names nearly
/// every step has, are the static texts they were written from instead of
/// a heap string a step (12 MB of a baseline of 375,000 steps, read
/// beside the head's evaluation by a compare; issue 25).
pub(crate) fn deserialize<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Cow<'static, str>, D::Error> {
    struct Name;
    impl serde::de::Visitor<'_> for Name {
        type Value = Cow<'static, str>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }

        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(match v {
                "rules" => Cow::Borrowed("rules"),
                "none" => Cow::Borrowed("none"),
                other => Cow::Owned(other.to_owned()),
            })
        }

        fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
            match v.as_str() {
                "rules" | "none" => self.visit_str(&v),
                _ => Ok(Cow::Owned(v)),
            }
        }
    }
    d.deserialize_str(Name)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    #[derive(serde::Deserialize)]
    struct Step {
        #[serde(deserialize_with = "super::deserialize")]
        scored_by: Cow<'static, str>,
    }

    fn read(json: &str) -> Result<Cow<'static, str>, String> {
        let from_str = serde_json::from_str::<Step>(json).map_err(|e| e.to_string());
        let from_reader =
            serde_json::from_reader::<_, Step>(json.as_bytes()).map_err(|e| e.to_string());
        // (The two readers place an error a column apart.)
        assert_eq!(
            from_str.as_ref().ok().map(|s| &s.scored_by),
            from_reader.as_ref().ok().map(|s| &s.scored_by)
        );
        from_str.map(|s| s.scored_by)
    }

    /// `rules` and `none` are the static names (borrowed, from text with
    /// or without escapes); any other name is its own text; anything but a
    /// string is the error a string field gives.
    #[test]
    fn the_common_names_are_static_and_the_rest_read_as_they_are() {
        for (json, name) in [
            (r#"{"scored_by": "rules"}"#, "rules"),
            (r#"{"scored_by": "none"}"#, "none"),
            (r#"{"scored_by": "rul\u0065s"}"#, "rules"),
        ] {
            assert!(
                matches!(read(json), Ok(Cow::Borrowed(n)) if n == name),
                "{json}"
            );
        }
        for (json, name) in [
            (r#"{"scored_by": "judge:gpt-5"}"#, "judge:gpt-5"),
            (r#"{"scored_by": ""}"#, ""),
            (r#"{"scored_by": "judge:\"x\""}"#, "judge:\"x\""),
        ] {
            assert!(
                matches!(read(json), Ok(Cow::Owned(ref n)) if n == name),
                "{json}"
            );
        }
        let error = read(r#"{"scored_by": 3}"#).unwrap_err();
        assert!(
            error.starts_with("invalid type: integer `3`, expected a string"),
            "{error}"
        );
    }
}
