//! `JUnit` XML for a compare: one test suite per agenteval suite, one test
//! case per metric. A regression that fails the gate is a failure, a
//! tolerated one or a suspected change is reported in the description,
//! insufficient data is skipped. quick-junit escapes markup; strings from
//! the report also pass `escape::xml`, so no character XML forbids gets in.

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
        junit.add_test_suite(ts);
    }
    junit
        .to_string()
        .unwrap_or_else(|e| format!("<!-- cannot render JUnit: {e} -->\n"))
}
