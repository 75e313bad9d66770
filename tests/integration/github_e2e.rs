//! The real binary in a simulated GitHub Actions job, against the fake
//! GitHub of `github_api::fake` on 127.0.0.1: `compare` in `pull_request`
//! runs (comment, job summary, outputs, annotations, forks, 403), the
//! `comment` command of the fork-safe pattern, and the shipped `action.yml`
//! and workflows (parsed, cross-checked, and the action's shell steps run).

mod action;
mod action_baselines;
mod action_gate;
mod action_install;
mod comment;
mod compare;
mod harness;
mod workflows;
