//! The selective (adaptive) test against brute force, and its size by simulation.
#![expect(clippy::float_cmp, reason = "0/1 data are compared exactly")]

use super::tests::{definition_term as term, sample_var as var};
use super::*;
use crate::stats::rng::MetricRng;

type Case = (Vec<f64>, Vec<f64>, Selection);

/// Every labelled arrangement of a case (which positions are the first stage, which the later
/// head trials), kept when the rule gives the observed decision; each kept one is equally
/// likely. Returns the terms of the kept arrangements.
fn arrangements(values: &[f64], m: usize, sel: Selection, f: f64, binary: bool) -> Vec<f64> {
    let n = values.len();
    let mut out = Vec::new();
    for first in 0_u32..(1 << n) {
        if first.count_ones() as usize != sel.first {
            continue;
        }
        for later in 0_u32..(1 << n) {
            if later & first != 0 || (later.count_ones() as usize) != m - sel.first {
                continue;
            }
            let pick = |mask: u32, wanted: bool| -> Vec<f64> {
                (0..n)
                    .filter(|j| (mask >> j & 1 == 1) == wanted)
                    .map(|j| values[j])
                    .collect()
            };
            let head_mask = first | later;
            let base = pick(head_mask, false);
            if rerun_rule(&pick(first, true), &base) != sel.rerun {
                continue;
            }
            out.push(term(&pick(head_mask, true), &base, f, binary));
        }
    }
    out
}

/// The conditional p by listing every labelled arrangement of every case.
fn brute(cases: &[Case]) -> f64 {
    let pooled: Vec<Vec<f64>> = cases
        .iter()
        .map(|(h, b, _)| h.iter().chain(b).copied().collect())
        .collect();
    let informative: Vec<usize> = (0..cases.len())
        .filter(|&i| pooled[i].iter().any(|v| *v != pooled[i][0]))
        .collect();
    let mut variances: Vec<f64> = informative.iter().map(|&i| var(&pooled[i])).collect();
    variances.sort_by(f64::total_cmp);
    let k = variances.len();
    let f = if k % 2 == 1 {
        variances[k / 2]
    } else {
        f64::midpoint(variances[k / 2 - 1], variances[k / 2])
    };
    let binary = pooled.iter().flatten().all(|v| *v == 0.0 || *v == 1.0);
    let mut totals = vec![(0.0_f64, 1.0_f64)];
    let mut observed = 0.0;
    let mut spread = 0.0;
    for &i in &informative {
        let (head, base, sel) = &cases[i];
        observed += term(head, base, f, binary);
        let ts = arrangements(&pooled[i], head.len(), *sel, f, binary);
        assert!(!ts.is_empty());
        spread += ts.iter().fold(0.0_f64, |m, t| m.max(t.abs()));
        let w = 1.0 / ts.len() as f64;
        totals = totals
            .iter()
            .flat_map(|(a, p)| ts.iter().map(move |t| (a + t, p * w)))
            .collect();
    }
    let p: f64 = totals
        .iter()
        .filter(|(t, _)| *t <= observed + 1e-9 * (1.0 + spread))
        .map(|(_, p)| p)
        .sum();
    p.min(1.0)
}

fn p_of(cases: &[Case]) -> StrataTest {
    let strata: Vec<Stratum<'_>> = cases
        .iter()
        .map(|(head, base, sel)| Stratum {
            head,
            base,
            selection: Some(*sel),
        })
        .collect();
    stratified_test(&strata, "m", 10_000, 7).unwrap()
}

const RERUN: Selection = Selection {
    first: 1,
    rerun: true,
};
const ONCE: Selection = Selection {
    first: 1,
    rerun: false,
};

#[test]
fn the_conditional_p_is_the_brute_force_p() {
    let sets: Vec<Vec<Case>> = vec![
        // Stable cases that broke, a flaky one, re-run; stable ones that held, run once.
        vec![
            (vec![0.0, 0.0, 1.0], vec![1.0, 1.0, 1.0], RERUN),
            (vec![1.0, 1.0, 0.0], vec![1.0, 0.0, 1.0], RERUN),
            (vec![0.0, 0.0, 0.0], vec![1.0, 1.0, 0.0], RERUN),
            (vec![1.0], vec![1.0, 1.0, 1.0], ONCE),
            (vec![0.0], vec![0.0, 0.0], ONCE),
        ],
        // A first stage of two trials.
        vec![
            (
                vec![0.0, 1.0, 0.0, 1.0],
                vec![1.0, 1.0, 1.0],
                Selection {
                    first: 2,
                    rerun: true,
                },
            ),
            (
                vec![1.0, 1.0],
                vec![1.0, 1.0, 1.0],
                Selection {
                    first: 2,
                    rerun: false,
                },
            ),
            (vec![0.0, 0.0, 1.0], vec![1.0, 1.0], RERUN),
        ],
        // Re-run cases whose re-runs gave this metric no value (a checkpoint that did not
        // apply in them): the head is the first stage alone.
        vec![
            (vec![0.0], vec![1.0, 1.0, 1.0], RERUN),
            (vec![1.0], vec![0.0, 1.0], RERUN),
            (vec![0.0, 0.0], vec![1.0, 1.0], RERUN),
            (vec![1.0], vec![1.0, 1.0], ONCE),
        ],
        // Partial credit (three values).
        vec![
            (vec![0.5, 0.0, 1.0], vec![1.0, 1.0, 0.5], RERUN),
            (vec![1.0, 1.0, 1.0], vec![0.5, 1.0, 1.0], RERUN),
            (vec![0.0, 0.5, 0.5], vec![1.0, 0.5], RERUN),
        ],
    ];
    for cases in &sets {
        let got = p_of(cases);
        let want = brute(cases);
        assert_eq!(got.method, StrataMethod::Exact, "{cases:?}");
        assert!(
            (got.p_value - want).abs() < 1e-9,
            "{cases:?}: {} vs {want}",
            got.p_value
        );
    }
}

#[test]
fn a_decision_the_data_could_not_give_is_an_error() {
    let ok = [(vec![0.0, 1.0, 1.0], vec![1.0, 1.0], RERUN)];
    assert!(p_of(&ok).p_value > 0.0);
    // Run once although the first trial (0) differs from the baseline (1, 1).
    let strata = [Stratum {
        head: &[0.0],
        base: &[1.0, 1.0],
        selection: Some(ONCE),
    }];
    let err = stratified_test(&strata, "m", 100, 0).unwrap_err();
    assert!(matches!(err, StatsError::Selection { .. }), "{err:?}");
    // Re-run with a first stage that does not fit the head.
    let strata = [Stratum {
        head: &[0.0],
        base: &[1.0, 1.0],
        selection: Some(Selection {
            first: 2,
            rerun: true,
        }),
    }];
    let err = stratified_test(&strata, "m", 100, 0).unwrap_err();
    assert!(matches!(err, StatsError::Selection { .. }), "{err:?}");
}

#[test]
fn the_naive_test_of_selected_data_differs_from_the_conditional_one() {
    // Broken stable cases re-run: the naive p treats the re-run as planned.
    let cases: Vec<Case> = (0..4)
        .map(|_| (vec![0.0, 1.0, 1.0], vec![1.0, 1.0, 1.0, 0.0], RERUN))
        .collect();
    let conditional = p_of(&cases).p_value;
    let strata: Vec<Stratum<'_>> = cases
        .iter()
        .map(|(head, base, _)| Stratum {
            head,
            base,
            selection: None,
        })
        .collect();
    let naive = stratified_test(&strata, "m", 10_000, 7).unwrap().p_value;
    let want = brute(&cases);
    assert!((conditional - want).abs() < 1e-9, "{conditional} vs {want}");
    assert!(
        (conditional - naive).abs() > 0.01,
        "{conditional} vs {naive}"
    );
}

// ------------------------------------------------------------------------------ simulation

fn uniform(rng: &mut MetricRng) -> f64 {
    ((rng.next_u64() >> 11) as f64 + 0.5) / (1_u64 << 53) as f64
}

/// A per-case success rate as on tau-bench: a third always pass, a fifth always fail, the
/// rest from a Beta(0.5, 0.5)-like U shape.
fn rate(rng: &mut MetricRng) -> f64 {
    match uniform(rng) {
        u if u < 0.33 => 1.0,
        u if u < 0.53 => 0.0,
        _ => {
            let x = uniform(rng);
            (1.0 - (std::f64::consts::PI * x).cos()) / 2.0
        }
    }
}

fn draw(rng: &mut MetricRng, p: f64) -> f64 {
    if uniform(rng) < p { 1.0 } else { 0.0 }
}

/// One adaptive compare under the null: `n` cases, `r` baseline trials each, a first stage
/// of one trial, a re-run to `k` trials when the first trial and the baseline are not all
/// equal.
/// Returns (conditional p, trials run).
fn adaptive_once(rng: &mut MetricRng, n: usize, r: usize, k: usize, seed: u64) -> (f64, usize) {
    let mut cases = Vec::with_capacity(n);
    let mut trials = 0;
    for _ in 0..n {
        let p = rate(rng);
        let base: Vec<f64> = (0..r).map(|_| draw(rng, p)).collect();
        let mut head = vec![draw(rng, p)];
        let rerun = rerun_rule(&head, &base);
        if rerun {
            head.extend((1..k).map(|_| draw(rng, p)));
        }
        trials += head.len();
        cases.push((head, base, Selection { first: 1, rerun }));
    }
    let strata: Vec<Stratum<'_>> = cases
        .iter()
        .map(|(head, base, sel)| Stratum {
            head,
            base,
            selection: Some(*sel),
        })
        .collect();
    let p = stratified_test(&strata, "sim", 2_000, seed)
        .unwrap()
        .p_value;
    (p, trials)
}

/// Size of the adaptive procedure (issue 20, "Done when"): the false-alarm rate of the
/// conditional test at α = 0.05 over n ∈ {20, 50, 100} and history depth r ∈ {1, 3, 8}, with
/// re-runs to k = 3. `cargo test --release --lib adaptive_null -- --ignored --nocapture`.
#[test]
#[ignore = "simulation; run with --release --ignored --nocapture"]
fn adaptive_null_rejects_at_most_alpha() {
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    println!("n\tr\treps\tsize@0.05\tsize@0.01\ttrials/case");
    let mut worst: f64 = 0.0;
    for n in [20, 50, 100] {
        for r in [1, 3, 8] {
            let mut rng = MetricRng::new(20_261_126, &format!("adaptive-{n}-{r}"));
            let (mut at05, mut at01, mut trials) = (0, 0, 0);
            for rep in 0..reps {
                let (p, t) = adaptive_once(&mut rng, n, r, 3, rep as u64);
                at05 += usize::from(p <= 0.05);
                at01 += usize::from(p <= 0.01);
                trials += t;
            }
            let size = at05 as f64 / reps as f64;
            let se = (0.05 * 0.95 / reps as f64).sqrt();
            worst = worst.max(size - 0.05 - 3.0 * se);
            println!(
                "{n}\t{r}\t{reps}\t{size:.4}\t{:.4}\t{:.2}",
                at01 as f64 / reps as f64,
                trials as f64 / (n * reps) as f64
            );
        }
    }
    assert!(worst <= 0.0, "a cell exceeds α by more than 3 MC SE");
}

fn normal(rng: &mut MetricRng) -> f64 {
    let (u, v) = (uniform(rng), uniform(rng));
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// One fixed-trials compare under the null: `n` cases, `m` head and `r` baseline trials
/// each, from the same per-case distribution (0/1 with a tau-bench-like rate, or continuous
/// with a per-case level and a stable or noisy spread). Returns the p-value.
fn fixed_once(rng: &mut MetricRng, n: usize, m: usize, r: usize, binary: bool, seed: u64) -> f64 {
    let cases: Vec<(Vec<f64>, Vec<f64>)> = (0..n)
        .map(|_| {
            let mut sample: Box<dyn FnMut(&mut MetricRng) -> f64> = if binary {
                let p = rate(rng);
                Box::new(move |rng| draw(rng, p))
            } else {
                let level = normal(rng);
                let spread = if uniform(rng) < 0.6 { 0.1 } else { 1.0 };
                Box::new(move |rng| level + spread * normal(rng))
            };
            let head = (0..m).map(|_| sample(rng)).collect();
            let base = (0..r).map(|_| sample(rng)).collect();
            (head, base)
        })
        .collect();
    let strata: Vec<Stratum<'_>> = cases
        .iter()
        .map(|(head, base)| Stratum {
            head,
            base,
            selection: None,
        })
        .collect();
    // Decisions at α ≤ 0.05 are those of the full-B test (the draws stop above it).
    stratified_test_until(&strata, "sim", 2_000, seed, 0.05)
        .unwrap()
        .p_value
}

/// Size of the stratified test (issue 20, "Done when"): the false-alarm rate at α = 0.05
/// over n ∈ {20, 50, 100}, head trials m ∈ {1, 2, 3}, history depth r ∈ {1, 3, 8}, for 0/1
/// and continuous metrics with stable and flaky cases mixed.
/// `REPS=1000 cargo test --release --lib stratified_null -- --ignored --nocapture`;
/// `CELLS=8:2:2,8:1:3` runs those cells (n:m:r) instead of the grid.
#[test]
#[ignore = "simulation; run with --release --ignored --nocapture"]
fn stratified_null_rejects_at_most_alpha() {
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000);
    let cells = std::env::var("CELLS").map_or_else(|_| null_grid(), |c| parse_cells(&c));
    println!("kind\tn\tm\tr\treps\tsize@0.05\tsize@0.01");
    let mut worst: f64 = 0.0;
    for binary in [true, false] {
        for &(n, m, r) in &cells {
            let kind = if binary { "0/1" } else { "cont" };
            let mut rng = MetricRng::new(20_261_126, &format!("null-{kind}-{n}-{m}-{r}"));
            let (mut at05, mut at01) = (0, 0);
            for rep in 0..reps {
                let p = fixed_once(&mut rng, n, m, r, binary, rep as u64);
                at05 += usize::from(p <= 0.05);
                at01 += usize::from(p <= 0.01);
            }
            let size = at05 as f64 / reps as f64;
            worst = worst.max(size - 0.05 - 3.0 * (0.05 * 0.95 / reps as f64).sqrt());
            println!(
                "{kind}\t{n}\t{m}\t{r}\t{reps}\t{size:.4}\t{:.4}",
                at01 as f64 / reps as f64
            );
        }
    }
    assert!(worst <= 0.0, "a cell exceeds α by more than 3 MC SE");
}

/// Issue 20's grid: n ∈ {20, 50, 100} × m ∈ {1, 2, 3} × r ∈ {1, 3, 8}.
fn null_grid() -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    for n in [20, 50, 100] {
        for m in [1, 2, 3] {
            for r in [1, 3, 8] {
                out.push((n, m, r));
            }
        }
    }
    out
}

/// `8:2:2,20:1:3` → [(8, 2, 2), (20, 1, 3)].
fn parse_cells(text: &str) -> Vec<(usize, usize, usize)> {
    text.split(',')
        .map(|cell| {
            let v: Vec<usize> = cell
                .split(':')
                .map(|x| x.trim().parse().expect("CELLS: n:m:r,…"))
                .collect();
            assert_eq!(v.len(), 3, "CELLS: n:m:r,…");
            (v[0], v[1], v[2])
        })
        .collect()
}
