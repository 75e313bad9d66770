//! What the gate asks a judge (DESIGN §3 floor 5, §7): the questions for
//! tier-3 checkpoints, step metrics and semantic task success
//! ([`questions`], [`tier`]), trace-level GPA judges ([`gpa`]), judged root
//! causes ([`rca`]), drafted rubrics ([`rubric`]), recurring-issue names
//! ([`insight_names`]), the run report's judge section ([`summary`]) and
//! `calibrate`'s agreement statistics.
//!
//! How the parts fit: [`questions`] renders a [`crate::llm::Request`] (a
//! prompt and an [`answer::AnswerFormat`]) for everything a case needs
//! judged; [`tier`] sends them all through one [`crate::llm::Engine`] run
//! and sorts the parsed answers back into what evaluation consumes. A new
//! kind of question is a new template, a new `AnswerFormat` variant with its
//! strict parser, and a new `questions` function: the cache, the budget,
//! retries, fallback and the `judge_error` accounting come with the engine.

pub(crate) mod answer;
pub mod calibrate;
pub(crate) mod excerpt;
pub(crate) mod gpa;
pub(crate) mod insight_names;
pub(crate) mod questions;
pub(crate) mod rca;
mod rca_answer;
pub(crate) mod rubric;
pub(crate) mod summary;
pub(crate) mod tier;

// The API the integration tests, benches and fuzz targets use.
pub use answer::AnswerFormat;
pub use answer::JudgedState;
pub use answer::Outcome;
pub use answer::Parsed;
pub use answer::Request;
pub use tier::JudgeRun;
