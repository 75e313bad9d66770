//! The multiple-comparison family, the exact tests and progressive α-spending (issue 9).

use crate::compare::decide::{AlphaPlan, smoke_spent_alpha, smoke_stops};
use crate::compare::error::CompareError;
use crate::model::compare::{MetricStatus, TestName, Verdict};
use crate::spec::model::{FailOn, GatesSpec};

use super::fixtures::{flat_cases, metric, options, report, run_with};

#[test]
fn issue_9_critical_checkpoint_93_to_69_percent_is_a_regression() {
    // 29 paired cases; the critical checkpoint passed in 27 and now in 20 (7 flipped), and
    // 14 other metrics did not move at all. Before issue 9 those constant metrics sat in the
    // Benjamini–Hochberg family with p = 1 and pushed q above α: "unchanged", exit 0.
    let base = report(flat_cases(29, 11, |i| i >= 2), "x");
    let head = report(flat_cases(29, 11, |i| i >= 9), "x");
    let r = run_with(
        &head,
        &base,
        &GatesSpec::default(),
        &options(FailOn::Critical),
    )
    .unwrap();
    let p1 = metric(&r, "checkpoint:P1");
    assert_eq!(
        (p1.base_mean, p1.head_mean),
        (Some(27.0 / 29.0), Some(20.0 / 29.0))
    );
    assert_eq!(p1.test, Some(TestName::ExactSignFlip));
    assert_eq!(p1.nonzero, Some(7));
    assert_eq!(p1.p_value, Some(1.0 / 128.0), "exact sign test: (1/2)^7");
    assert_eq!(p1.q_value, Some(1.0 / 128.0), "the only testable metric");
    assert_eq!(p1.status, MetricStatus::Regression);
    assert_eq!((r.family.size, r.family.untestable), (1, 15));
    for m in r.metrics.iter().filter(|m| m.name != "checkpoint:P1") {
        assert_eq!(m.test, Some(TestName::NoVariation), "{}", m.name);
        assert_eq!(m.q_value, None, "{}", m.name);
        assert_eq!(m.status, MetricStatus::Unchanged);
        assert!(
            m.test_note.contains("29 paired values are equal"),
            "{}",
            m.test_note
        );
    }
    assert_eq!(r.verdict, Verdict::Fail);
    // Raw p-values give the same answer here: nothing else is in the family.
    let raw = run_with(
        &head,
        &base,
        &GatesSpec::default(),
        &crate::compare::decide::CompareOptions {
            fdr: false,
            ..options(FailOn::Critical)
        },
    )
    .unwrap();
    assert_eq!(
        metric(&raw, "checkpoint:P1").status,
        MetricStatus::Regression
    );
}

#[test]
fn three_of_five_flips_cannot_reach_alpha_and_leave_the_family() {
    // The smallest p three changed cases can give is (1/2)^3 = 0.125 > 0.05 (Tarone).
    let base = report(flat_cases(5, 0, |_| true), "x");
    let head = report(flat_cases(5, 0, |i| i >= 3), "x");
    let r = run_with(
        &head,
        &base,
        &GatesSpec::default(),
        &options(FailOn::Critical),
    )
    .unwrap();
    let p1 = metric(&r, "checkpoint:P1");
    assert_eq!(p1.test, Some(TestName::NoVariation));
    assert_eq!(
        (p1.p_value, p1.min_p, p1.q_value),
        (Some(0.125), Some(0.125), None)
    );
    assert!(
        p1.test_note.contains("only 3 cases changed"),
        "{}",
        p1.test_note
    );
    assert_eq!(p1.status, MetricStatus::Unchanged);
    // Not a pass either: all three changed cases got worse, too few to decide (issue 23).
    assert_eq!(r.verdict, Verdict::Inconclusive);
    let u = r
        .inconclusive
        .iter()
        .find(|u| u.metric == "checkpoint:P1")
        .unwrap();
    assert_eq!((u.cases.len(), u.needed_changed, u.fails), (3, 5, true));
    // Five cases could decide (5 of 5 flipped), but 3 of 5 is a majority: `auto` blocks.
    assert_eq!((u.undecidable, u.majority_worse), (false, true));
    // Five of five flipped: (1/2)^5 = 0.031 < 0.05, in the family, a regression.
    let head = report(flat_cases(5, 0, |_| false), "x");
    let r = run_with(
        &head,
        &base,
        &GatesSpec::default(),
        &options(FailOn::Critical),
    )
    .unwrap();
    assert_eq!(metric(&r, "checkpoint:P1").status, MetricStatus::Regression);
}

#[test]
fn the_smoke_tier_tests_at_its_share_of_alpha() {
    let smoke = crate::compare::decide::CompareOptions {
        alpha_plan: AlphaPlan::Smoke,
        ..options(FailOn::Critical)
    };
    let fail_on = |_: &str| FailOn::Critical;
    // 6 of 6 smoke cases flipped: p = 1/64 = 0.0156 > α_s = 0.01: cannot stop the run.
    let base = report(flat_cases(6, 0, |_| true), "x");
    let head = report(flat_cases(6, 0, |_| false), "x");
    let r = run_with(&head, &base, &GatesSpec::default(), &smoke).unwrap();
    assert!((r.family.alpha - 0.01).abs() < 1e-12);
    assert_eq!(
        metric(&r, "checkpoint:P1").test,
        Some(TestName::NoVariation)
    );
    assert!(!smoke_stops(&r, fail_on) && !smoke_spent_alpha(&r));
    // 7 of 8 flipped (p = 1/128): a blatant break stops the run, and the smoke tier spent α_s.
    let base = report(flat_cases(8, 0, |_| true), "x");
    let head = report(flat_cases(8, 0, |i| i == 7), "x");
    let r = run_with(&head, &base, &GatesSpec::default(), &smoke).unwrap();
    assert_eq!(metric(&r, "checkpoint:P1").status, MetricStatus::Regression);
    assert!(smoke_stops(&r, fail_on) && smoke_spent_alpha(&r));
    // Identical smoke runs with enough changeable... none changed: nothing spent.
    let r = run_with(&base, &base, &GatesSpec::default(), &smoke).unwrap();
    assert!(!smoke_spent_alpha(&r));
    // The full tier gets what is left.
    let full = crate::compare::decide::CompareOptions {
        alpha_plan: AlphaPlan::FullAfterSmoke { smoke_spent: true },
        ..options(FailOn::Critical)
    };
    let r = run_with(&head, &base, &GatesSpec::default(), &full).unwrap();
    assert!((r.family.alpha - 0.04).abs() < 1e-12, "{}", r.family.alpha);
}

#[test]
fn too_few_resamples_for_the_family_is_an_error_not_a_silent_pass() {
    // 60 checkpoints that each changed in 6 of 40 cases, and a continuous cost that changed
    // everywhere (Monte Carlo). With B = 1,000 the Monte Carlo p cannot go below 1/1001,
    // but BH over 61 metrics needs p < 0.05/61.
    let mut base = flat_cases(40, 0, |_| true);
    let mut head = flat_cases(40, 0, |_| true);
    for (i, (b, h)) in base.iter_mut().zip(head.iter_mut()).enumerate() {
        b.scores.cost_usd = Some(0.01);
        h.scores.cost_usd = Some(0.02 + (i as f64).sqrt() * 1e-3);
        for k in 0..60 {
            let id = format!("Y{k:02}");
            let fail = (i + k) % 40 < 6;
            b.checkpoints.push(super::fixtures::checkpoint(
                &id,
                crate::spec::model::Severity::Low,
                crate::model::run::CheckpointState::Pass,
            ));
            h.checkpoints.push(super::fixtures::checkpoint(
                &id,
                crate::spec::model::Severity::Low,
                if fail {
                    crate::model::run::CheckpointState::Fail
                } else {
                    crate::model::run::CheckpointState::Pass
                },
            ));
        }
    }
    let (base, head) = (report(base, "x"), report(head, "x"));
    let few = crate::compare::decide::CompareOptions {
        resamples: 1_000,
        ..options(FailOn::Critical)
    };
    let err = run_with(&head, &base, &GatesSpec::default(), &few).unwrap_err();
    match err {
        CompareError::TooFewResamples { family, needed, .. } => {
            assert_eq!((family, needed), (61, 1220));
        }
        other @ CompareError::Stats { .. } => panic!("{other:?}"),
    }
    let enough = crate::compare::decide::CompareOptions {
        resamples: 2_000,
        ..options(FailOn::Critical)
    };
    let r = run_with(&head, &base, &GatesSpec::default(), &enough).unwrap();
    assert_eq!(
        metric(&r, "cost_usd").test,
        Some(TestName::MonteCarloSignFlip)
    );
    assert_eq!(metric(&r, "cost_usd").status, MetricStatus::Regression);
}
