//! Configuration layering (STYLE §7).
//!
//! Precedence: flags, then `AGENTEVAL_*` environment variables (clap's `env`),
//! then `agenteval.yaml` (found by walking up from the working directory, or
//! `--config`), then defaults. Paths in `agenteval.yaml` are relative to the
//! file's directory.
