//! The LLM judge (issue 11): the real HTTP clients against loopback servers
//! (wiremock, and the scripted stand-in judge), the cache across processes,
//! faults that must never turn into a pass, and `calibrate`.

mod calibrate;
mod cli;
mod engine;
mod fallback;
mod gpa;
mod numbers;
mod profiles;
mod prose;
mod rca;
mod rubric;
mod stand_in;
pub(crate) mod support;
