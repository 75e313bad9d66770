//! `JUnit` XML for a compare: one test suite per agenteval suite, one test
//! case per metric. A regression that fails the gate is a failure, a
//! tolerated one or a suspected change is reported in the description,
//! insufficient data is skipped. quick-junit escapes markup; strings from
//! the report also pass `escape::xml`, so no character XML forbids gets in.
//! When no case was selected, [`render_nothing_selected_junit`] says so in a
//! valid document (for `run` too).

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::model::compare::{CompareReport, MetricStatus};
use crate::output::escape::xml;

use super::compare_text::{effect, sigma};

pub fn render_compare_junit(r: &CompareReport) -> String {
    let mut junit = Report::new("agenteval-gate compare");
    let mut suites: Vec<&str> = r.metrics.iter().map(|m| m.suite.as_str()).collect();
    suites.dedup();
    for suite in suites {
        let mut ts = TestSuite::new(xml(suite).into_owned());
        for m in r.metrics.iter().filter(|m| m.suite == suite) {
            let detail = format!("{}; 2σ: {}", effect(m), xml(&sigma(m)));
            let status = match m.status {
                MetricStatus::Regression if r.fail_on.fails(m.severity) => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    s.set_message(format!("{} regression: {detail}", m.severity))
                        .set_type("regression");
                    // The worse cases with their trials and history, and flaky carriers.
                    if let Some(loc) = &m.localization {
                        let cases = super::flaky::junit_detail(&m.name, loc);
                        if !cases.is_empty() {
                            s.set_description(xml(&cases).into_owned());
                        }
                    }
                    s
                }
                MetricStatus::NotComparable if r.fail_on.fails(m.severity) => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    s.set_message(format!("not comparable: {}", xml(&m.judge_note)))
                        .set_type("not_comparable");
                    s
                }
                MetricStatus::InsufficientData => {
                    let mut s = TestCaseStatus::skipped();
                    s.set_message(format!("insufficient data: {} paired cases", m.n));
                    s
                }
                other => {
                    let mut s = TestCaseStatus::success();
                    s.set_description(format!("{other}: {detail}"));
                    s
                }
            };
            let mut tc = TestCase::new(xml(&m.name).into_owned(), status);
            tc.set_classname(xml(suite).into_owned());
            ts.add_test_case(tc);
        }
        let flaky = super::flaky::junit_suite(r, suite);
        if !flaky.is_empty() {
            ts.set_system_out(xml(&flaky).into_owned());
        }
        junit.add_test_suite(ts);
    }
    junit
        .to_string()
        .unwrap_or_else(|e| format!("<!-- cannot render JUnit: {e} -->\n"))
}

/// `JUnit` XML when no case was selected (`run` or `compare` exiting 4, or 0
/// with `--allow-empty`): a valid document that says why, rather than an
/// empty output a test reporter cannot parse (issue 25). One test suite,
/// `selection`, with one test case, `no cases selected`: an error, or
/// skipped when `--allow-empty` allowed the empty selection.
pub fn render_nothing_selected_junit(title: &str, allowed: bool) -> String {
    let status = if allowed {
        let mut s = TestCaseStatus::skipped();
        s.set_message("no cases selected; `--allow-empty` lets the gate pass");
        s
    } else {
        let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
        s.set_message(
            "no cases selected (exit 4): check `--suite`, `--tier` and `--shard`; pass `--allow-empty` if an empty selection is expected",
        )
        .set_type("nothing-evaluated");
        s
    };
    let mut tc = TestCase::new("no cases selected", status);
    tc.set_classname("selection");
    let mut ts = TestSuite::new("selection");
    ts.add_test_case(tc);
    let mut junit = Report::new(title);
    junit.add_test_suite(ts);
    junit
        .to_string()
        .unwrap_or_else(|e| format!("<!-- cannot render JUnit: {e} -->\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_selected_is_a_valid_document_that_says_why() {
        let failed = render_nothing_selected_junit("agenteval-gate run", false);
        assert!(failed.starts_with("<?xml"), "{failed}");
        assert!(
            failed.contains("tests=\"1\"") && failed.contains("errors=\"1\""),
            "{failed}"
        );
        assert!(failed.contains("type=\"nothing-evaluated\""), "{failed}");
        let allowed = render_nothing_selected_junit("agenteval-gate run", true);
        assert!(
            allowed.contains("<skipped message=\"no cases selected;"),
            "{allowed}"
        );
        assert!(allowed.contains("errors=\"0\""), "{allowed}");
    }
}
