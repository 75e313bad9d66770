//! The judge cache: content-addressed answers on disk.
//!
//! Key: sha256 over a version tag and, each length-prefixed, the provider,
//! the model, the base URL, the parameters (temperature, max tokens), the
//! answer format, the rendered system and user messages, and the repeat
//! index. Same question, same key, on every machine; any change to a prompt,
//! a setting, the model or the endpoint gives a new key, so stale answers are
//! never served (two servers that serve the same model name, an Ollama and a
//! vLLM, never share answers).
//!
//! Layout: `<dir>/judge-v1/<first two hex>/<key>.json`, one small JSON file
//! per answer. Writers write a uniquely named temporary file in the same
//! directory and rename it over the target, so concurrent writers (threads,
//! processes, CI jobs sharing a restored `actions/cache`) never leave a torn
//! file: a reader sees a whole entry or none. Two writers of one key write
//! the same answer, and either rename may win. Only answers that parsed are
//! stored. An unreadable or corrupt entry is a miss (and counted), never an
//! error.
//!
//! In GitHub Actions, persist `<dir>` with `actions/cache`: because keys are
//! content hashes, restoring any older cache is safe (see the README).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::prompts::Prompt;
use super::provider::{JudgeIdentity, Params};

/// Subdirectory and format version of entries.
pub(crate) const CACHE_SUBDIR: &str = "judge-v1";
const KEY_TAG: &[u8] = b"agenteval-gate judge cache v1";
const ENTRY_SCHEMA: u32 = 1;

/// One cached answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub schema: u32,
    pub provider: String,
    pub model: String,
    /// The answer exactly as the provider sent it.
    pub text: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// What the call cost when it was made (a hit costs nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

impl Entry {
    pub fn new(
        identity: &JudgeIdentity,
        text: String,
        input: u64,
        output: u64,
        cost: Option<f64>,
    ) -> Self {
        Self {
            schema: ENTRY_SCHEMA,
            provider: identity.provider.clone(),
            model: identity.model.clone(),
            text,
            input_tokens: input,
            output_tokens: output,
            cost_usd: cost,
        }
    }
}

/// The cache key of one question to one judge.
pub(crate) fn key(
    identity: &JudgeIdentity,
    base_url: &str,
    params: Params,
    format: &str,
    prompt: &Prompt,
    repeat: u32,
) -> String {
    let mut h = Sha256::new();
    let mut field = |bytes: &[u8]| {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    field(KEY_TAG);
    field(identity.provider.as_bytes());
    field(identity.model.as_bytes());
    field(base_url.trim_end_matches('/').as_bytes());
    // A parameter left out is an empty field: keys of set values are unchanged.
    match params.temperature {
        Some(t) => field(&t.to_bits().to_le_bytes()),
        None => field(&[]),
    }
    match params.max_tokens {
        Some(n) => field(&n.to_le_bytes()),
        None => field(&[]),
    }
    field(format.as_bytes());
    field(prompt.system.as_bytes());
    field(prompt.user.as_bytes());
    field(&repeat.to_le_bytes());
    crate::digest::hex(&h.finalize())
}

/// A cache directory; read-only in replay mode.
#[derive(Debug, Clone)]
pub struct Cache {
    root: PathBuf,
    writable: bool,
}

/// A lookup's result.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    Hit(Entry),
    Miss,
    /// The file exists but is not a valid entry (counted, treated as a miss).
    Corrupt,
}

impl Cache {
    /// The cache under `dir` (created on first write).
    pub fn new(dir: &Path, writable: bool) -> Self {
        Self {
            root: dir.join(CACHE_SUBDIR),
            writable,
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn path(&self, key: &str) -> PathBuf {
        self.root
            .join(&key[..2.min(key.len())])
            .join(format!("{key}.json"))
    }

    pub fn get(&self, key: &str) -> Lookup {
        match std::fs::read(self.path(key)) {
            Ok(bytes) => match serde_json::from_slice::<Entry>(&bytes) {
                Ok(e) if e.schema == ENTRY_SCHEMA => Lookup::Hit(e),
                _ => Lookup::Corrupt,
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Lookup::Miss,
            Err(_) => Lookup::Corrupt,
        }
    }

    /// Store `entry` under `key` (temporary file + rename). No-op when read-only.
    pub fn put(&self, key: &str, entry: &Entry) -> std::io::Result<()> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        if !self.writable {
            return Ok(());
        }
        let target = self.path(key);
        let dir = target.parent().unwrap_or(&self.root);
        std::fs::create_dir_all(dir)?;
        let tmp = dir.join(format!(
            ".{key}.{}.{}.tmp",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let bytes = serde_json::to_vec_pretty(entry).map_err(std::io::Error::other)?;
        let result = (|| {
            // `create_new` (O_EXCL): a link committed at the temp name is
            // not followed (issue 25).
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?;
            f.write_all(&bytes)?;
            f.write_all(b"\n")?;
            drop(f);
            std::fs::rename(&tmp, &target)
        })();
        if result.is_err() {
            let _ignored = std::fs::remove_file(&tmp);
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(user: &str) -> Prompt {
        Prompt {
            system: "s".into(),
            user: user.into(),
        }
    }

    const U: &str = "https://api.openai.com/v1";

    #[test]
    fn keys_change_with_every_input() {
        let id = JudgeIdentity::new("openai", "m");
        let p = Params::default();
        let f = "semantic_match";
        let base = key(&id, U, p, f, &prompt("u"), 0);
        assert_eq!(base.len(), 64);
        assert_eq!(base, key(&id, U, p, f, &prompt("u"), 0));
        let others = [
            key(
                &JudgeIdentity::new("anthropic", "m"),
                U,
                p,
                f,
                &prompt("u"),
                0,
            ),
            key(
                &JudgeIdentity::new("openai", "m2"),
                U,
                p,
                f,
                &prompt("u"),
                0,
            ),
            key(
                &id,
                U,
                Params {
                    temperature: Some(0.5),
                    ..p
                },
                f,
                &prompt("u"),
                0,
            ),
            key(
                &id,
                U,
                Params {
                    max_tokens: Some(99),
                    ..p
                },
                f,
                &prompt("u"),
                0,
            ),
            key(
                &id,
                U,
                Params {
                    temperature: None,
                    ..p
                },
                f,
                &prompt("u"),
                0,
            ),
            key(
                &id,
                U,
                Params {
                    max_tokens: None,
                    ..p
                },
                f,
                &prompt("u"),
                0,
            ),
            key(&id, U, p, "score_line", &prompt("u"), 0),
            key(&id, U, p, f, &prompt("u2"), 0),
            key(&id, U, p, f, &prompt("u"), 1),
            // Another server with the same model name.
            key(&id, "http://127.0.0.1:11434/v1", p, f, &prompt("u"), 0),
            // Length prefixes: moving a byte between fields changes the key.
            key(
                &id,
                U,
                p,
                f,
                &Prompt {
                    system: "su".into(),
                    user: String::new(),
                },
                0,
            ),
        ];
        for o in others {
            assert_ne!(o, base);
        }
    }

    #[test]
    fn entries_round_trip_and_corruption_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path(), true);
        let id = JudgeIdentity::new("openai", "m");
        let k = key(&id, U, Params::default(), "semantic_match", &prompt("u"), 0);
        assert_eq!(cache.get(&k), Lookup::Miss);
        let e = Entry::new(&id, "Score: 3".into(), 10, 2, Some(0.001));
        cache.put(&k, &e).unwrap();
        assert_eq!(cache.get(&k), Lookup::Hit(e.clone()));
        std::fs::write(cache.path(&k), "{\"schema\": 1, \"prov").unwrap();
        assert_eq!(cache.get(&k), Lookup::Corrupt);
        let ro = Cache::new(dir.path(), false);
        ro.put(&k, &e).unwrap();
        assert_eq!(ro.get(&k), Lookup::Corrupt, "read-only caches never write");
    }

    #[test]
    fn concurrent_writers_leave_a_whole_entry() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path(), true);
        let id = JudgeIdentity::new("openai", "m");
        let k = key(&id, U, Params::default(), "semantic_match", &prompt("u"), 0);
        std::thread::scope(|s| {
            for t in 0..8u64 {
                let cache = cache.clone();
                let k = k.clone();
                let id = id.clone();
                s.spawn(move || {
                    for i in 0..50u64 {
                        let e = Entry::new(
                            &id,
                            format!("answer {t}-{i} {}", "x".repeat(4000)),
                            t,
                            i,
                            None,
                        );
                        cache.put(&k, &e).unwrap();
                        assert!(matches!(cache.get(&k), Lookup::Hit(_)), "torn read");
                    }
                });
            }
        });
        let leftovers = std::fs::read_dir(cache.path(&k).parent().unwrap())
            .unwrap()
            .count();
        assert_eq!(leftovers, 1, "no temporary files are left behind");
    }
}
