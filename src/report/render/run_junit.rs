//! `JUnit` XML for run reports: one test suite per agenteval suite, one test
//! case per case × checkpoint (FAIL → failure, N/A and BLOCKED → skipped,
//! a case that did not complete → error).

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::report::model::{CaseStatus, CheckpointState, RunReport};

pub fn render_run_junit(reports: &[&RunReport]) -> String {
    let mut junit = Report::new("agenteval-gate");
    for report in reports {
        let mut suite = TestSuite::new(report.suite.clone());
        for case in &report.cases {
            for r in &case.checkpoints {
                let status =
                    if case.status != CaseStatus::Ok && r.result != CheckpointState::Blocked {
                        let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
                        s.set_message(format!("case {}: {}", case.status, r.notes));
                        s
                    } else {
                        match r.result {
                            CheckpointState::Pass => TestCaseStatus::success(),
                            CheckpointState::Partial => {
                                let mut s = TestCaseStatus::success();
                                s.set_description(format!("PARTIAL: {}", r.notes));
                                s
                            }
                            CheckpointState::Fail => {
                                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                                s.set_message(r.notes.clone())
                                    .set_type(format!("{} checkpoint", r.severity));
                                s
                            }
                            CheckpointState::NotApplicable | CheckpointState::Blocked => {
                                let mut s = TestCaseStatus::skipped();
                                s.set_message(format!("{}: {}", r.result, r.notes));
                                s
                            }
                        }
                    };
                let mut tc = TestCase::new(format!("{}::{}", case.id, r.id), status);
                tc.set_classname(format!("{}.{}", report.suite, case.id));
                suite.add_test_case(tc);
            }
        }
        junit.add_test_suite(suite);
    }
    junit
        .to_string()
        .unwrap_or_else(|e| format!("<!-- cannot render JUnit: {e} -->\n"))
}
