#![expect(
    clippy::float_cmp,
    reason = "determinism and the sign-flip delegation are asserted bit for bit"
)]
use proptest::prelude::*;
use serde_json::Value;

use super::case::*;
use super::ci::*;
use super::exact::*;
use super::*;

/// `tests/fixtures/stats/strata.json`, written by `scripts/strata_reference.py` (brute force).
const FIXTURE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/stats/strata.json"
));

type Cases = Vec<(Vec<f64>, Vec<f64>)>;

fn fixture() -> Vec<Value> {
    let v: Value = serde_json::from_str(FIXTURE).unwrap();
    v["datasets"].as_array().unwrap().clone()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn cases_of(dataset: &Value) -> Cases {
    dataset["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (floats(&c["head"]), floats(&c["base"])))
        .collect()
}

fn dataset(name: &str) -> Value {
    fixture().into_iter().find(|d| d["name"] == name).unwrap()
}

fn strata(cases: &Cases) -> Vec<Stratum<'_>> {
    cases
        .iter()
        .map(|(head, base)| Stratum {
            head,
            base,
            selection: None,
        })
        .collect()
}

fn run(cases: &Cases, resamples: u32, seed: u64, options: Options) -> StrataTest {
    test_with(&strata(cases), "m", resamples, seed, options).unwrap()
}

fn close(got: f64, want: f64, rel: f64) -> bool {
    (got - want).abs() <= rel * want.abs() + 1e-15
}

const GENERAL: Options = Options {
    force_monte_carlo: false,
    no_sign_flip: true,
};
const FORCED_MC: Options = Options {
    force_monte_carlo: true,
    no_sign_flip: true,
};

/// Deterministic shuffle for tests.
fn shuffled<T: Clone>(values: &[T], rng: &mut MetricRng) -> Vec<T> {
    let mut v = values.to_vec();
    for i in (1..v.len()).rev() {
        v.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    v
}

fn mean_of(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

pub(super) fn sample_var(v: &[f64]) -> f64 {
    let mu = mean_of(v);
    v.iter().map(|x| (x - mu) * (x - mu)).sum::<f64>() / (v.len() - 1) as f64
}

/// The term of a head/base split from its definition: moderated for 0/1 data, standardized
/// otherwise.
pub(super) fn definition_term(head: &[f64], base: &[f64], f: f64, binary: bool) -> f64 {
    let (m, r) = (head.len() as f64, base.len() as f64);
    let nu = m + r - 2.0;
    let (mh, mb) = (mean_of(head), mean_of(base));
    if !binary {
        let all: Vec<f64> = head.iter().chain(base).copied().collect();
        let v = if all.len() >= 3 { sample_var(&all) } else { f };
        return (mh - mb) / (v * (1.0 / m + 1.0 / r)).sqrt();
    }
    let ss: f64 = head.iter().map(|x| (x - mh).powi(2)).sum::<f64>()
        + base.iter().map(|x| (x - mb).powi(2)).sum::<f64>();
    let s2res = if nu > 0.0 { ss / nu } else { 0.0 };
    let s2mod = (nu * s2res + PRIOR_DF * f) / (nu + PRIOR_DF);
    (mh - mb) / (s2mod * (1.0 / m + 1.0 / r)).sqrt()
}

/// `p` and `min_p` by listing every arrangement, statistic from its definition (means and
/// the two groups' sums of squares), for small data.
fn brute(cases: &Cases) -> (f64, f64) {
    let pooled: Vec<Vec<f64>> = cases
        .iter()
        .map(|(h, b)| h.iter().chain(b).copied().collect())
        .collect();
    let informative: Vec<usize> = (0..cases.len())
        .filter(|&i| pooled[i].iter().any(|v| *v != pooled[i][0]))
        .collect();
    if informative.is_empty() {
        return (1.0, 1.0);
    }
    let f = median(
        &informative
            .iter()
            .map(|&i| sample_var(&pooled[i]))
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let binary = pooled.iter().flatten().all(|v| *v == 0.0 || *v == 1.0);
    let term = |head: &[f64], base: &[f64]| definition_term(head, base, f, binary);
    let mut per: Vec<Vec<f64>> = Vec::new();
    let mut observed = 0.0;
    for &i in &informative {
        let (heads, values) = (cases[i].0.len(), &pooled[i]);
        observed += term(&values[..heads], &values[heads..]);
        let mut ts = Vec::new();
        for mask in 0_u32..(1 << values.len()) {
            if mask.count_ones() as usize == heads {
                let pick = |wanted: bool| -> Vec<f64> {
                    (0..values.len())
                        .filter(|j| (mask >> j & 1 == 1) == wanted)
                        .map(|j| values[j])
                        .collect()
                };
                ts.push(term(&pick(true), &pick(false)));
            }
        }
        per.push(ts);
    }
    let scale = 1.0
        + per
            .iter()
            .map(|ts| ts.iter().fold(0.0_f64, |m, t| m.max(t.abs())))
            .sum::<f64>();
    let minimum: f64 = per
        .iter()
        .map(|ts| ts.iter().copied().fold(f64::INFINITY, f64::min))
        .sum();
    let mut totals = vec![0.0_f64];
    for ts in &per {
        totals = totals
            .iter()
            .flat_map(|a| ts.iter().map(move |t| a + t))
            .collect();
    }
    let share = |bound: f64| {
        totals
            .iter()
            .filter(|t| **t <= bound + 1e-9 * scale)
            .count() as f64
            / totals.len() as f64
    };
    (share(observed), share(minimum))
}

#[test]
fn exact_p_and_min_p_match_the_brute_force_fixture() {
    let mut checked = 0;
    for d in fixture() {
        if d["monte_carlo"].as_bool().unwrap() {
            continue;
        }
        let cases = cases_of(&d);
        let want = &d["result"];
        let (p, min_p) = (want["p"].as_f64().unwrap(), want["min_p"].as_f64().unwrap());
        let informative = want["n_informative"].as_u64().unwrap() as usize;
        for options in [Options::default(), GENERAL] {
            let r = run(&cases, 10_000, 1, options);
            let name = d["name"].as_str().unwrap();
            assert!(close(r.p_value, p, 1e-9), "{name}: {r:?} vs p {p}");
            assert!(
                close(r.min_p, min_p, 1e-9),
                "{name}: {r:?} vs min_p {min_p}"
            );
            let method = if informative == 0 {
                StrataMethod::NoVariation
            } else {
                StrataMethod::Exact
            };
            assert_eq!(r.method, method, "{name}");
            assert_eq!(r.informative, informative, "{name}");
            assert_eq!(r.cases, cases.len(), "{name}");
            assert!(
                close(r.statistic, want["T_obs"].as_f64().unwrap(), 1e-9),
                "{name}: {r:?}"
            );
            assert!(
                close(r.effect, want["effect"].as_f64().unwrap(), 1e-12),
                "{name}: {r:?}"
            );
            assert_eq!(
                (r.head_trials, r.base_trials),
                (
                    cases.iter().map(|c| c.0.len()).sum(),
                    cases.iter().map(|c| c.1.len()).sum()
                )
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 15);
}

#[test]
fn exact_p_matches_an_in_test_brute_force() {
    for name in [
        "binary_m3_r3",
        "binary_ragged",
        "cont_m2_r2_ties",
        "cont_ragged",
        "head_better",
    ] {
        let cases = cases_of(&dataset(name));
        let (p, min_p) = brute(&cases);
        let r = run(&cases, 100, 0, GENERAL);
        assert!(
            close(r.p_value, p, 1e-9) && close(r.min_p, min_p, 1e-9),
            "{name}: {r:?} vs {p} {min_p}"
        );
    }
}

#[test]
fn monte_carlo_is_within_its_error_of_the_exact_p() {
    let b = 20_000_u32;
    let mut forced = 0;
    for d in fixture() {
        let cases = cases_of(&d);
        let want = &d["result"];
        let (p, min_p) = (want["p"].as_f64().unwrap(), want["min_p"].as_f64().unwrap());
        let natural = d["monte_carlo"].as_bool().unwrap();
        if want["n_informative"].as_u64().unwrap() == 0 {
            continue;
        }
        let r = run(
            &cases,
            b,
            3,
            if natural {
                Options::default()
            } else {
                FORCED_MC
            },
        );
        assert_eq!(r.method, StrataMethod::MonteCarlo, "{}", d["name"]);
        let se = (p * (1.0 - p) / f64::from(b)).sqrt();
        assert!(
            (r.p_value - p).abs() <= 4.0 * se + 2.0 / f64::from(b),
            "{}: {r:?} vs exact {p} (se {se})",
            d["name"]
        );
        assert!(
            close(r.min_p, min_p.max(1.0 / f64::from(b + 1)), 1e-9),
            "{}: {r:?}",
            d["name"]
        );
        forced += usize::from(!natural);
    }
    assert_eq!(forced, 14);
}

#[test]
fn big_continuous_cases_are_sampled_not_listed() {
    // C(34, 4) = 46,376 head sets: more than ENUMERATE_MAX, so Monte Carlo.
    let cases = cases_of(&dataset("continuous_big"));
    let r = run(&cases, 10_000, 0, Options::default());
    assert_eq!(r.method, StrataMethod::MonteCarlo);
    // The sampled case's min_p is exact (1/C(34, 4) here: no ties), times 1/4.
    assert_eq!(r.min_p, 1.0 / 10_001.0);
    let exact_min: f64 = prepared_min_p(&cases);
    assert!(close(exact_min, 1.0 / 185_504.0, 1e-12), "{exact_min}");
}

fn prepared_min_p(cases: &Cases) -> f64 {
    let canonical = canonical_cases(&strata(cases)).unwrap();
    canonical
        .iter()
        .enumerate()
        .filter_map(|(i, c)| Prepared::new(i, c, 1.0))
        .map(|p| p.min_probability())
        .product()
}

#[test]
fn one_trial_per_side_is_todays_sign_flip_test() {
    let mut rng = MetricRng::new(5, "one-vs-one");
    let mut uniform = || (rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
    let mut datasets: Vec<Cases> = Vec::new();
    for d in ["binary_1v1", "cont_1v1"] {
        datasets.push(cases_of(&dataset(d)));
    }
    // Continuous k = 8, 14, 20 (meet in the middle), 0/1 with k = 40 (lattice), k = 60
    // continuous (Monte Carlo in both), ties on a grid.
    for k in [8, 14, 20, 60] {
        datasets.push(
            (0..k)
                .map(|_| (vec![uniform() * 3.0 - 0.4], vec![uniform() * 3.0]))
                .collect(),
        );
    }
    datasets.push(
        (0..55)
            .map(|i| {
                let h = f64::from(u8::from(i % 3 != 0));
                let b = f64::from(u8::from(i % 5 != 0));
                (vec![h], vec![b])
            })
            .collect(),
    );
    datasets.push(
        (0..16)
            .map(|i| (vec![f64::from(i % 5) * 0.5], vec![f64::from(i % 4) * 0.5]))
            .collect(),
    );
    for cases in &datasets {
        let diffs: Vec<f64> = cases.iter().map(|(h, b)| h[0] - b[0]).collect();
        let flip = sign_flip_test(&diffs, "m", 2_000, 9).unwrap();
        let r = run(cases, 2_000, 9, Options::default());
        assert_eq!(
            (r.p_value, r.min_p),
            (flip.p_value, flip.min_p),
            "{cases:?}"
        );
        assert_eq!(
            r.method == StrataMethod::Exact,
            flip.method == SignFlipMethod::Exact
        );
        assert_eq!(r.informative, flip.nonzero);
        // The general path computes the same test (T = Σd/√(2f) is monotone in Σd).
        if flip.method == SignFlipMethod::Exact {
            let general = run(cases, 2_000, 9, GENERAL);
            assert_eq!(general.method, StrataMethod::Exact, "{cases:?}");
            assert!(
                (general.p_value - flip.p_value).abs() < 1e-12,
                "{general:?} vs {flip:?}"
            );
            assert!(close(general.min_p, flip.min_p, 1e-12));
        }
    }
}

#[test]
fn order_of_cases_and_of_trials_does_not_matter() {
    let mut rng = MetricRng::new(1, "order");
    for name in [
        "binary_ragged",
        "cont_ragged",
        "continuous_big",
        "ternary_big",
    ] {
        let cases = cases_of(&dataset(name));
        for options in [Options::default(), FORCED_MC] {
            let r = run(&cases, 3_000, 4, options);
            for _ in 0..3 {
                let permuted: Cases = shuffled(&cases, &mut rng)
                    .into_iter()
                    .map(|(h, b)| (shuffled(&h, &mut rng), shuffled(&b, &mut rng)))
                    .collect();
                assert_eq!(run(&permuted, 3_000, 4, options), r, "{name}");
            }
        }
    }
}

#[test]
fn constant_cases_give_no_variation() {
    let cases: Cases = vec![
        (vec![1.0, 1.0], vec![1.0, 1.0, 1.0]),
        (vec![0.0], vec![0.0]),
        (vec![0.5], vec![0.5, 0.5]),
    ];
    let r = run(&cases, 100, 0, Options::default());
    assert_eq!(
        (
            r.p_value,
            r.min_p,
            r.method,
            r.informative,
            r.statistic,
            r.effect
        ),
        (1.0, 1.0, StrataMethod::NoVariation, 0, 0.0, 0.0)
    );
    assert_eq!((r.cases, r.head_trials, r.base_trials), (3, 4, 6));
}

#[test]
fn a_fixed_seed_gives_the_same_numbers_and_the_seed_and_name_matter() {
    let cases = cases_of(&dataset("continuous_big"));
    let s = strata(&cases);
    let a = stratified_test(&s, "latency", 5_000, 7).unwrap();
    assert_eq!(a, stratified_test(&s, "latency", 5_000, 7).unwrap());
    assert_ne!(
        a.p_value,
        stratified_test(&s, "latency", 5_000, 8).unwrap().p_value
    );
    assert_ne!(
        a.p_value,
        stratified_test(&s, "cost", 5_000, 7).unwrap().p_value
    );
    // Exact results do not depend on the seed at all.
    let exact = cases_of(&dataset("ternary_big"));
    assert_eq!(
        run(&exact, 5_000, 1, Options::default()),
        run(&exact, 10, 2, Options::default())
    );
}

#[test]
fn tables_list_every_head_set_once() {
    // Compositions against head sets: counts, total weight C(N, m), and the distribution
    // of S, for distinct values, ties, and m > r (the base side is listed).
    let term = Term {
        gain: 1.0,
        ss: 0.0,
        k: 0.0,
        floor: 1.0,
    };
    let cases: Cases = vec![
        (vec![0.1, 0.7, 0.2], vec![0.9, 0.3, 0.5, 0.4]),
        (vec![0.0, 1.0, 1.0, 0.5], vec![0.5, 0.0, 1.0, 1.0, 1.0]),
        (vec![2.0, 2.0, 3.0, 1.0, 1.0], vec![3.0, 1.0]),
        (vec![0.0], vec![1.0, 1.0, 1.0, 0.0, 1.0, 1.0]),
    ];
    for (head, base) in &cases {
        let case = Case {
            head: head.clone(),
            base: base.clone(),
            selection: None,
        };
        let p = Prepared::new(0, &case, 1.0).unwrap();
        let n = p.centred.len();
        let mut sets: Vec<f64> = (0_u32..(1 << n))
            .filter(|mask| mask.count_ones() as usize == p.m)
            .map(|mask| {
                (0..n)
                    .filter(|j| mask >> j & 1 == 1)
                    .map(|j| p.centred[j])
                    .sum()
            })
            .collect();
        sets.sort_by(f64::total_cmp);
        let mut table = p.table(&term);
        assert!(
            close(table.iter().map(|(_, q)| q).sum(), 1.0, 1e-15),
            "{table:?}"
        );
        let distinct = {
            let mut s = sets.clone();
            s.dedup_by(|a, b| (*a - *b).abs() < 1e-12);
            s.len()
        };
        assert!(p.count_compositions(ENUMERATE_MAX) >= distinct);
        assert_eq!(p.count_compositions(ENUMERATE_MAX), table.len());
        sort_merge(&mut table, 1e-12);
        // Each distinct S with its share of head sets (term.at(s) = s here).
        let mut expected = sets.iter().map(|s| (*s, 1.0 / sets.len() as f64)).collect();
        sort_merge(&mut expected, 1e-12);
        assert_eq!(table.len(), expected.len(), "{head:?} {base:?}");
        for ((v, q), (ev, eq)) in table.iter().zip(&expected) {
            assert!(
                (v - ev).abs() < 1e-12 && close(*q, *eq, 1e-12),
                "{table:?} vs {expected:?}"
            );
        }
        assert!(close(p.min_probability(), expected[0].1, 1e-12));
    }
    // The count is capped.
    let wide = Case {
        head: (0..10).map(f64::from).collect(),
        base: (10..40).map(f64::from).collect(),
        selection: None,
    };
    let p = Prepared::new(0, &wide, 1.0).unwrap();
    assert_eq!(p.count_compositions(1000), 1001);
}

#[test]
fn zero_one_cases_use_the_hypergeometric_table_at_any_size() {
    // 5 vs 40 trials: 6 compositions instead of 1,221,759 head sets, exact.
    let cases = cases_of(&dataset("binary_big"));
    let r = run(&cases, 100, 0, Options::default());
    assert_eq!(r.method, StrataMethod::Exact);
    let canonical = canonical_cases(&strata(&cases)).unwrap();
    for case in &canonical[..3] {
        let p = Prepared::new(0, case, 1.0).unwrap();
        assert!(p.count_compositions(ENUMERATE_MAX) <= 6);
    }
    assert!(
        Prepared::new(3, &canonical[3], 1.0).is_none(),
        "always passing"
    );
}

#[test]
fn many_cases_of_few_kinds_stay_exact_and_hopeless_attempts_are_skipped() {
    // 600 0/1 cases of three kinds (1 vs 4 trials): T* takes at most C(k + 1, 1) values
    // per kind, so the convolution is small and exact, and Monte Carlo agrees with it.
    let mut cases: Cases = Vec::new();
    for i in 0..600 {
        let base = match i % 3 {
            0 => vec![1.0, 1.0, 1.0, 1.0],
            1 => vec![1.0, 0.0, 1.0, 1.0],
            _ => vec![0.0, 0.0, 1.0, 0.0],
        };
        let head = vec![f64::from(u8::from(i % 7 != 0 && i % 3 != 2))];
        cases.push((head, base));
    }
    let exact = run(&cases, 20_000, 0, Options::default());
    assert_eq!(exact.method, StrataMethod::Exact);
    let informative = cases
        .iter()
        .filter(|(h, b)| b.iter().any(|v| *v != h[0]))
        .count();
    assert_eq!((exact.informative, informative > 400), (informative, true));
    let mc = run(&cases, 20_000, 0, FORCED_MC);
    let se = (exact.p_value * (1.0 - exact.p_value) / 20_000.0).sqrt();
    assert!(
        (mc.p_value - exact.p_value).abs() <= 4.0 * se + 1e-4,
        "{mc:?} vs {exact:?}"
    );
    // 40 continuous 2 vs 3 cases: 10 distinct terms each, 10⁴⁰ sums; no table beyond the
    // first few is even built.
    let mut rng = MetricRng::new(8, "hopeless");
    let mut uniform = || (rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
    let continuous: Cases = (0..40)
        .map(|_| {
            (
                vec![uniform(), uniform()],
                vec![uniform(), uniform(), uniform()],
            )
        })
        .collect();
    let canonical = canonical_cases(&strata(&continuous)).unwrap();
    let prepared: Vec<Prepared> = canonical
        .iter()
        .enumerate()
        .filter_map(|(i, c)| Prepared::new(i, c, 1.0))
        .collect();
    let terms: Vec<Term> = prepared
        .iter()
        .map(|p| Term::new(p, 0.1, Statistic::Moderated))
        .collect();
    let counts: Vec<usize> = prepared
        .iter()
        .map(|p| p.count_compositions(ENUMERATE_MAX))
        .collect();
    assert_eq!(counts, vec![10; 40]);
    assert!(feasible_tables(&prepared[..7], &terms[..7], &counts[..7]).is_some());
    assert!(feasible_tables(&prepared[..8], &terms[..8], &counts[..8]).is_none());
    assert_eq!(
        run(&continuous, 1_000, 0, Options::default()).method,
        StrataMethod::MonteCarlo
    );
}

#[test]
fn bad_input_is_an_error() {
    let ok = [1.0, 2.0];
    let one = |head: &[f64], base: &[f64]| {
        stratified_test(
            &[
                Stratum {
                    head: &ok,
                    base: &ok,
                    selection: None,
                },
                Stratum {
                    head,
                    base,
                    selection: None,
                },
            ],
            "m",
            100,
            0,
        )
    };
    assert_eq!(stratified_test(&[], "m", 100, 0), Err(StatsError::Empty));
    assert_eq!(one(&[], &[1.0]), Err(StatsError::Empty));
    assert_eq!(one(&[1.0], &[]), Err(StatsError::Empty));
    let err = one(&[1.0], &[0.0, f64::NAN]).unwrap_err();
    assert!(
        matches!(err, StatsError::NonFinite { index: 6, .. }),
        "{err:?}"
    );
    let err = one(&[f64::INFINITY], &[0.0]).unwrap_err();
    assert!(
        matches!(err, StatsError::NonFinite { index: 4, .. }),
        "{err:?}"
    );
    let s = [Stratum {
        head: &ok,
        base: &ok,
        selection: None,
    }];
    assert!(matches!(
        stratified_test(&s, "m", 0, 0),
        Err(StatsError::Resamples { .. })
    ));
    assert!(stratified_test(&s, "m", BootstrapConfig::MAX_RESAMPLES + 1, 0).is_err());
    let err = one(&[f64::MAX], &[-f64::MAX]).unwrap_err();
    assert!(matches!(err, StatsError::Overflow { .. }), "{err:?}");
    let cfg = BootstrapConfig::new(100, 0.95, 0).unwrap();
    assert_eq!(stratified_ci(&[], "m", &cfg), Err(StatsError::Empty));
}

#[test]
fn huge_and_tiny_values_neither_overflow_nor_vanish() {
    let cases = cases_of(&dataset("cont_ragged"));
    let want = run(&cases, 100, 0, Options::default());
    for factor in [1e300, 1e-300, 2.0_f64.powi(-1070)] {
        let scaled: Cases = cases
            .iter()
            .map(|(h, b)| {
                (
                    h.iter().map(|v| v * factor).collect(),
                    b.iter().map(|v| v * factor).collect(),
                )
            })
            .collect();
        let r = run(&scaled, 100, 0, Options::default());
        if factor > 1e-310 {
            assert_eq!(
                (r.p_value, r.min_p, r.method),
                (want.p_value, want.min_p, want.method)
            );
            assert!(close(r.statistic, want.statistic, 1e-12), "{r:?}");
        }
        assert!(r.p_value.is_finite() && r.statistic.is_finite() && r.effect.is_finite());
    }
}

#[test]
fn ci_matches_the_python_reference_within_its_monte_carlo_error() {
    let cfg = BootstrapConfig::new(10_000, 0.95, 42).unwrap();
    for name in ["cont_m1_r3", "cont_ragged"] {
        let d = dataset(name);
        let cases = cases_of(&d);
        let ci = stratified_ci(&strata(&cases), "m", &cfg).unwrap();
        let want = &d["ci"];
        let (lo, hi) = (
            want["low"].as_f64().unwrap(),
            want["high"].as_f64().unwrap(),
        );
        let (lo_sd, hi_sd) = (
            want["low_sd_10k"].as_f64().unwrap(),
            want["high_sd_10k"].as_f64().unwrap(),
        );
        assert!(
            (ci.ci_low - lo).abs() < 4.0 * lo_sd + 1e-9,
            "{name}: {ci:?} vs {lo}"
        );
        assert!(
            (ci.ci_high - hi).abs() < 4.0 * hi_sd + 1e-9,
            "{name}: {ci:?} vs {hi}"
        );
        assert!(close(
            ci.effect,
            d["result"]["effect"].as_f64().unwrap(),
            1e-12
        ));
        assert!(ci.ci_low <= ci.effect && ci.effect <= ci.ci_high, "{ci:?}");
    }
}

#[test]
fn ci_is_deterministic_order_free_and_exact_when_nothing_varies() {
    let cfg = BootstrapConfig::new(2_000, 0.9, 3).unwrap();
    let cases = cases_of(&dataset("binary_big"));
    let a = stratified_ci(&strata(&cases), "m", &cfg).unwrap();
    let mut rng = MetricRng::new(2, "ci-order");
    let permuted: Cases = shuffled(&cases, &mut rng)
        .into_iter()
        .map(|(h, b)| (shuffled(&h, &mut rng), shuffled(&b, &mut rng)))
        .collect();
    assert_eq!(a, stratified_ci(&strata(&permuted), "m", &cfg).unwrap());
    assert_ne!(a, stratified_ci(&strata(&cases), "n", &cfg).unwrap());
    assert!(a.ci_low < a.effect && a.effect < a.ci_high, "{a:?}");
    // Every case 0.5 lower with constant groups: the interval is the point.
    let flat: Cases = (0..7)
        .map(|i| {
            let v = f64::from(i) / 4.0;
            (vec![v; 3], vec![v + 0.5; 2])
        })
        .collect();
    let c = stratified_ci(&strata(&flat), "m", &cfg).unwrap();
    assert_eq!((c.effect, c.ci_low, c.ci_high), (-0.5, -0.5, -0.5));
}

fn arb_cases() -> impl Strategy<Value = Cases> {
    let value = prop_oneof![
        (0_i32..3).prop_map(f64::from),
        (-8_i32..8).prop_map(|i| f64::from(i) / 4.0),
        -5.0_f64..5.0,
    ];
    let case = (
        prop::collection::vec(value.clone(), 1..4),
        prop::collection::vec(value, 1..5),
    );
    prop::collection::vec(case, 1..5)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn p_is_between_min_p_and_one(cases in arb_cases(), seed in any::<u64>()) {
        for options in [Options::default(), FORCED_MC] {
            let r = run(&cases, 200, seed, options);
            prop_assert!(r.min_p > 0.0 && r.min_p <= r.p_value && r.p_value <= 1.0, "{:?}", r);
            prop_assert!(r.statistic.is_finite() && r.effect.is_finite());
        }
    }

    #[test]
    fn exact_p_is_the_brute_force_p(cases in arb_cases()) {
        let r = run(&cases, 100, 0, GENERAL);
        let (p, min_p) = brute(&cases);
        prop_assert!(close(r.p_value, p, 1e-9) && close(r.min_p, min_p, 1e-9), "{:?} vs {} {}", r, p, min_p);
    }

    #[test]
    fn adding_a_constant_changes_nothing(cases in arb_cases(), shift in -1000_i32..1000, seed in any::<u64>()) {
        let shift = f64::from(shift) / 8.0;
        let moved: Cases = cases
            .iter()
            .map(|(h, b)| (h.iter().map(|v| v + shift).collect(), b.iter().map(|v| v + shift).collect()))
            .collect();
        for options in [Options::default(), FORCED_MC] {
            let a = run(&cases, 300, seed, options);
            let b = run(&moved, 300, seed, options);
            // The statistic is chosen by the values (0/1 or not), which a shift can change.
            prop_assume!(a.statistic_kind == b.statistic_kind);
            prop_assert_eq!((a.p_value, a.min_p, a.method), (b.p_value, b.min_p, b.method));
            prop_assert!((a.statistic - b.statistic).abs() < 1e-6 * (1.0 + a.statistic.abs()));
        }
    }
}

#[test]
#[ignore = "timing; run with --release --ignored --nocapture"]
fn timing_of_the_gate_workload() {
    // 1,000 cases × 5 head trials vs 40 history trials, B = 10,000.
    let mut rng = MetricRng::new(0, "timing");
    let mut uniform = || (rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
    let continuous: Cases = (0..1000)
        .map(|_| {
            (
                (0..5).map(|_| uniform()).collect(),
                (0..40).map(|_| uniform()).collect(),
            )
        })
        .collect();
    let binary: Cases = continuous
        .iter()
        .map(|(h, b)| {
            (
                h.iter().map(|v| f64::from(u8::from(*v < 0.8))).collect(),
                b.iter().map(|v| f64::from(u8::from(*v < 0.8))).collect(),
            )
        })
        .collect();
    let small: Cases = continuous
        .iter()
        .map(|(h, b)| (h.clone(), b[..10].to_vec()))
        .collect();
    let cfg = BootstrapConfig::new(10_000, 0.95, 0).unwrap();
    for (name, cases) in [
        ("continuous 5v40", &continuous),
        ("binary 5v40", &binary),
        ("continuous 5v10", &small),
    ] {
        let s = strata(cases);
        let start = std::time::Instant::now();
        let r = stratified_test(&s, "m", 10_000, 0).unwrap();
        let test = start.elapsed();
        let start = std::time::Instant::now();
        let ci = stratified_ci(&s, "m", &cfg).unwrap();
        eprintln!(
            "{name}: test {test:?} ({:?}, p {}), ci {:?} ({ci:?})",
            r.method,
            r.p_value,
            start.elapsed()
        );
    }
}
