//! `JUnit` XML for run reports: one test suite per agenteval suite, one test
//! case per case × checkpoint (FAIL → failure, N/A and BLOCKED → skipped,
//! a case that did not complete → error). quick-junit escapes markup;
//! strings from the report also pass `escape::xml`, so no character XML
//! forbids gets in.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::model::run::{CaseStatus, CheckpointState, RunReport};
use crate::output::escape::xml;

pub fn render_run_junit(reports: &[&RunReport]) -> String {
    let mut junit = Report::new("agenteval-gate");
    for report in reports {
        let mut suite = TestSuite::new(xml(&report.suite).into_owned());
        for case in &report.cases {
            for r in &case.checkpoints {
                let notes = xml(&r.notes);
                let status =
                    if case.status != CaseStatus::Ok && r.result != CheckpointState::Blocked {
                        let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
                        s.set_message(format!("case {}: {notes}", case.status));
                        s
                    } else {
                        match r.result {
                            CheckpointState::Pass => TestCaseStatus::success(),
                            CheckpointState::Partial => {
                                let mut s = TestCaseStatus::success();
                                s.set_description(format!("PARTIAL: {notes}"));
                                s
                            }
                            CheckpointState::Fail => {
                                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                                s.set_message(notes.clone().into_owned())
                                    .set_type(format!("{} checkpoint", r.severity));
                                s
                            }
                            CheckpointState::NotApplicable | CheckpointState::Blocked => {
                                let mut s = TestCaseStatus::skipped();
                                s.set_message(format!("{}: {notes}", r.result));
                                s
                            }
                        }
                    };
                let mut tc =
                    TestCase::new(xml(&format!("{}::{}", case.id, r.id)).into_owned(), status);
                tc.set_classname(xml(&format!("{}.{}", report.suite, case.id)).into_owned());
                suite.add_test_case(tc);
            }
        }
        junit.add_test_suite(suite);
    }
    junit
        .to_string()
        .unwrap_or_else(|e| format!("<!-- cannot render JUnit: {e} -->\n"))
}
