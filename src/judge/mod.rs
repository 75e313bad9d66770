//! LLM judges behind one trait (DESIGN §7, issue 11): OpenAI-compatible chat
//! completions, Anthropic messages, and `replay` (cache only); the
//! content-addressed cache, retries, fallback, budgets and accounting of
//! [`pipeline::Engine`]; the prompts and their fence; the questions asked
//! for tier-3 checkpoints, step metrics and semantic task success; and
//! `calibrate`'s agreement statistics.
//!
//! How the parts fit: [`questions`] renders a [`pipeline::Request`] (a
//! [`prompts::Prompt`] and an [`answer::AnswerFormat`]) for everything a
//! case needs judged; [`tier`] sends them all through one
//! [`pipeline::Engine`] run and sorts the parsed answers back into what
//! evaluation consumes. New kinds of question (trace-level GPA judges on
//! the 0–3 scale with span citations, judged root causes, rubric
//! generation) are new templates, a new `AnswerFormat` with its strict
//! parser, and a new `questions` function: the trait, the cache, the budget,
//! retries, fallback and the `judge_error` accounting come with the engine.
//! Judged root causes ([`rca`]) are asked after evaluation, one per failed case.

pub mod answer;
pub mod anthropic;
pub mod budget;
pub mod cache;
pub mod calibrate;
pub mod config;
pub mod error;
pub mod excerpt;
pub mod http;
pub mod openai;
pub mod pipeline;
pub mod prompts;
pub mod provider;
pub mod questions;
pub mod rca;
mod rca_answer;
pub mod replay;
pub mod retry;
pub mod settings;
pub mod stats;
pub mod summary;
pub mod tier;

pub use config::{JudgeFlags, JudgeMode, JudgeOptions, JudgeSettings};
pub use error::{CallError, JudgeError};
pub use pipeline::{Answer, Engine, Outcome, Request, RunStats};
pub use provider::{Judge, JudgeIdentity};
