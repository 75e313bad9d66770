//! Locations the main model does not keep: the lines of `gates:` keys and
//! values, `thresholds:` values and `agent:` fields. Those types are built
//! in memory elsewhere (tests, config), so they stay plain; a second,
//! lenient parse of `suite.yaml` finds where each key was written, so every
//! error points at its own line.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_saphyr::{Location, Spanned};

type At = Option<Spanned<IgnoredAny>>;

#[derive(Deserialize, Default)]
struct LocFile {
    #[serde(default)]
    gates: Option<Spanned<LocGates>>,
    #[serde(default)]
    thresholds: Option<Keyed<IgnoredAny>>,
    #[serde(default)]
    agent: Option<Spanned<LocAgent>>,
    #[serde(default)]
    traces: At,
    #[serde(default)]
    evidence: At,
    #[serde(default)]
    tiers: At,
}

#[derive(Deserialize, Default)]
struct LocGates {
    #[serde(default)]
    alpha: At,
    #[serde(default)]
    min_cases: At,
    #[serde(default)]
    history_window: At,
    #[serde(default)]
    max_judge_error_rate: At,
    #[serde(default)]
    metrics: Option<Keyed<LocFields>>,
    #[serde(default)]
    absolute: Option<Keyed<LocFields>>,
}

#[derive(Deserialize, Default)]
struct LocFields {
    #[serde(default)]
    min_effect: At,
    #[serde(default)]
    severity: At,
    #[serde(default)]
    min: At,
    #[serde(default)]
    max: At,
}

#[derive(Deserialize, Default)]
struct LocAgent {
    #[serde(default)]
    command: At,
    #[serde(default)]
    timeout_s: At,
    #[serde(default)]
    concurrency: At,
    #[serde(default)]
    env: Option<Keyed<IgnoredAny>>,
    #[serde(default)]
    env_passthrough: Option<Vec<Spanned<String>>>,
}

/// A mapping whose keys keep their location.
struct Keyed<V>(Vec<(Spanned<String>, V)>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Keyed<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyedVisitor<V>(PhantomData<V>);

        impl<'de, V: Deserialize<'de>> Visitor<'de> for KeyedVisitor<V> {
            type Value = Keyed<V>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keyed<V>, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<Spanned<String>>()? {
                    entries.push((key, map.next_value::<V>()?));
                }
                Ok(Keyed(entries))
            }
        }

        deserializer.deserialize_map(KeyedVisitor(PhantomData))
    }
}

impl<V> Keyed<V> {
    fn get(&self, key: &str) -> Option<&(Spanned<String>, V)> {
        self.0.iter().find(|(k, _)| k.value == key)
    }
}

/// Where things were written; `None` for anything not found.
#[derive(Default)]
pub(super) struct Locations {
    file: LocFile,
}

fn at(a: &At) -> Option<Location> {
    a.as_ref().map(|s| s.referenced)
}

impl Locations {
    pub(super) fn parse(source: &str) -> Self {
        let file = serde_saphyr::from_str_with_options::<LocFile>(
            source,
            crate::spec::load::yaml_options(),
        )
        .unwrap_or_default();
        Self { file }
    }

    fn gates(&self) -> Option<&Spanned<LocGates>> {
        self.file.gates.as_ref()
    }

    /// `gates.<field>` for the scalar settings.
    pub(super) fn gate_field(&self, field: &str) -> Option<Location> {
        let g = &self.gates()?.value;
        match field {
            "alpha" => at(&g.alpha),
            "min_cases" => at(&g.min_cases),
            "history_window" => at(&g.history_window),
            "max_judge_error_rate" => at(&g.max_judge_error_rate),
            _ => None,
        }
        .or_else(|| self.gates().map(|g| g.referenced))
    }

    /// The key of `gates.<section>.<name>`, or one of its fields.
    pub(super) fn gate_entry(
        &self,
        section: &str,
        name: &str,
        field: Option<&str>,
    ) -> Option<Location> {
        let g = &self.gates()?.value;
        let keyed = match section {
            "metrics" => g.metrics.as_ref(),
            _ => g.absolute.as_ref(),
        }?;
        let (key, fields) = keyed.get(name)?;
        let field_at = match field {
            Some("min_effect") => at(&fields.min_effect),
            Some("severity") => at(&fields.severity),
            Some("min") => at(&fields.min),
            Some("max") => at(&fields.max),
            _ => None,
        };
        Some(field_at.unwrap_or(key.referenced))
    }

    /// The value of `thresholds.<TYPE>`.
    pub(super) fn threshold(&self, step_type: &str) -> Option<Location> {
        self.file
            .thresholds
            .as_ref()?
            .get(step_type)
            .map(|(k, _)| k.referenced)
    }

    /// A top-level key's value: `traces`, `evidence`, `tiers`.
    pub(super) fn top(&self, key: &str) -> Option<Location> {
        match key {
            "traces" => at(&self.file.traces),
            "evidence" => at(&self.file.evidence),
            "tiers" => at(&self.file.tiers),
            _ => None,
        }
    }

    /// `agent.<field>`, else the `agent:` block.
    pub(super) fn agent_field(&self, field: &str) -> Option<Location> {
        let a = self.file.agent.as_ref()?;
        match field {
            "command" => at(&a.value.command),
            "timeout_s" => at(&a.value.timeout_s),
            "concurrency" => at(&a.value.concurrency),
            _ => None,
        }
        .or(Some(a.referenced))
    }

    /// The entry `name` of `agent.env_passthrough` or the key `name` of
    /// `agent.env`, else the `agent:` block.
    pub(super) fn agent_env_entry(&self, field: &str, name: &str) -> Option<Location> {
        let a = self.file.agent.as_ref()?;
        let found = match field {
            "env" => a.value.env.as_ref()?.get(name).map(|(k, _)| k.referenced),
            _ => a
                .value
                .env_passthrough
                .as_ref()?
                .iter()
                .find(|e| e.value == name)
                .map(|e| e.referenced),
        };
        found.or(Some(a.referenced))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_fields_keep_their_lines() {
        let yaml = "suite: s\nspec_version: '1'\nthresholds: {PLAN: 9}\nagent:\n  command: []\n  timeout_s: 0\ngates:\n  alpha: 2\n  metrics:\n    task_success: {min_effect: 5}\n    compliance_percent:\n      severity: high\n  absolute:\n    compliance_percent: {min: 170}\n";
        let l = Locations::parse(yaml);
        assert_eq!(l.gate_field("alpha").map(|x| x.line()), Some(8));
        assert_eq!(
            l.gate_entry("metrics", "task_success", Some("min_effect"))
                .map(|x| x.line()),
            Some(10)
        );
        assert_eq!(
            l.gate_entry("metrics", "compliance_percent", None)
                .map(|x| (x.line(), x.column())),
            Some((11, 5))
        );
        assert_eq!(
            l.gate_entry("absolute", "compliance_percent", Some("min"))
                .map(|x| x.line()),
            Some(14)
        );
        assert_eq!(l.threshold("PLAN").map(|x| x.line()), Some(3));
        assert_eq!(l.agent_field("timeout_s").map(|x| x.line()), Some(6));
        let l = Locations::parse(
            "suite: s\nagent:\n  command: [a]\n  env: {X: 1,\n    GH_TOKEN: t}\n  env_passthrough:\n    - OPENAI_API_KEY\n    - GITHUB_ENV\n",
        );
        let line = |f: &str, n: &str| l.agent_env_entry(f, n).map(|x| x.line());
        assert_eq!(line("env", "GH_TOKEN"), Some(5));
        assert_eq!(line("env_passthrough", "GITHUB_ENV"), Some(8));
        assert_eq!(line("env_passthrough", "NOT_THERE"), Some(3), "the block");
        assert_eq!(
            Locations::parse("suite: s\ntraces: t/\n")
                .top("traces")
                .map(|x| x.line()),
            Some(2)
        );
        assert!(l.gate_entry("metrics", "nope", None).is_none());
        assert!(Locations::parse(": : bad").gate_field("alpha").is_none());
    }
}
