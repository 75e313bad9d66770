//! Flakiness on the compare page (issue 20): each worse case's trials and history beside its
//! link, a warning when only flaky cases carry a finding, and the flakiest cases of each suite
//! folded below the matrix. The words are [`crate::report::render::flaky`]'s; the template
//! escapes every string.

use serde::Serialize;

use crate::model::compare::{CompareReport, FlippedCase};
use crate::report::render::flaky::{case_history, case_words, suite_words};

/// Flaky cases listed per suite.
const SHOWN: usize = 25;

#[derive(Serialize)]
pub(super) struct FlakyView {
    suite: String,
    words: String,
    cases: Vec<String>,
    more: usize,
}

/// The flaky cases of every suite that has any, flakiest first.
pub(super) fn flaky_views(r: &CompareReport) -> Vec<FlakyView> {
    r.flakiness
        .iter()
        .filter(|f| !f.flaky.is_empty())
        .map(|f| FlakyView {
            suite: f.suite.clone(),
            words: suite_words(f),
            cases: f
                .flaky
                .iter()
                .take(SHOWN)
                .map(|c| case_words(c, str::to_owned))
                .collect(),
            more: f.flaky.len().saturating_sub(SHOWN),
        })
        .collect()
}

/// A worse case's trials and history, e.g. `failed 2 of 3 trials; passed 3 of 3 before`.
pub(super) fn history(metric: &str, case: &FlippedCase) -> Option<String> {
    case_history(metric, case, str::to_owned)
}
