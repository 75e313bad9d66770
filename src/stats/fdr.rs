//! Benjamini–Hochberg false-discovery-rate adjustment across the metrics of one compare.
//!
//! `q₍ᵢ₎ = min_{j ≥ i} p₍ⱼ₎ · m / j` over the ascending p-values, capped at 1 and returned in
//! input order: the step-up adjustment of Benjamini & Hochberg (1995) as written by
//! `scipy.stats.false_discovery_control(method="bh")` and R's `p.adjust(method = "BH")`.
//! The arithmetic follows scipy's order (`p · (m / j)`, then a reverse running minimum), so
//! results agree to the last bit in practice; the tests allow 1e-12.

use super::error::StatsError;

/// BH q-values for `p_values`, in the same order. Every p-value must lie in `[0, 1]`;
/// empty in, empty out.
pub fn benjamini_hochberg(p_values: &[f64]) -> Result<Vec<f64>, StatsError> {
    if let Some(index) = p_values.iter().position(|p| !(0.0..=1.0).contains(p)) {
        return Err(StatsError::PValueOutOfRange {
            index,
            value: p_values[index],
        });
    }
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    // Stable, so equal p-values keep input order (they get equal q-values either way).
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));

    let m_f = m as f64;
    let mut adjusted: Vec<f64> = order
        .iter()
        .enumerate()
        .map(|(rank, &i)| p_values[i] * (m_f / (rank + 1) as f64))
        .collect();
    for j in (0..m.saturating_sub(1)).rev() {
        adjusted[j] = adjusted[j].min(adjusted[j + 1]);
    }

    let mut q = vec![0.0; m];
    for (&i, &value) in order.iter().zip(&adjusted) {
        q[i] = value.clamp(0.0, 1.0);
    }
    Ok(q)
}

#[cfg(test)]
#[expect(
    clippy::float_cmp,
    reason = "the tests assert exact, reproducible results"
)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn known_example() {
        // Ranks 1..4 hold 0.01, 0.03, 0.04, 0.2: p·4/rank = 0.04, 0.06, 0.0533…, 0.2, and the
        // running minimum from the top lowers 0.06 to 0.0533…
        // (scipy.stats.false_discovery_control gives 0.04, 0.05333333333333333 ×2, 0.2.)
        let q = benjamini_hochberg(&[0.01, 0.04, 0.03, 0.2]).unwrap();
        let expected = [
            0.04,
            0.053_333_333_333_333_33,
            0.053_333_333_333_333_33,
            0.2,
        ];
        for (got, want) in q.iter().zip(expected) {
            assert!((got - want).abs() < 1e-15, "{q:?}");
        }
    }

    #[test]
    fn capped_at_one_and_edge_sizes() {
        assert_eq!(benjamini_hochberg(&[]).unwrap(), Vec::<f64>::new());
        assert_eq!(benjamini_hochberg(&[0.3]).unwrap(), vec![0.3]);
        assert_eq!(benjamini_hochberg(&[1.0, 0.9]).unwrap(), vec![1.0, 1.0]);
    }

    #[test]
    fn rejects_values_that_are_not_p_values() {
        assert!(matches!(
            benjamini_hochberg(&[0.1, f64::NAN]),
            Err(StatsError::PValueOutOfRange { index: 1, value }) if value.is_nan()
        ));
        assert!(matches!(
            benjamini_hochberg(&[0.1, 1.5]),
            Err(StatsError::PValueOutOfRange { index: 1, value }) if value == 1.5
        ));
        assert!(benjamini_hochberg(&[-0.0001]).is_err());
    }

    proptest! {
        #[test]
        fn q_is_at_least_p_at_most_one_and_monotone(ps in prop::collection::vec(0.0_f64..=1.0, 0..60)) {
            let q = benjamini_hochberg(&ps).unwrap();
            prop_assert_eq!(q.len(), ps.len());
            for (i, (&p, &qi)) in ps.iter().zip(&q).enumerate() {
                prop_assert!(qi >= p && qi <= 1.0 && !qi.is_nan(), "i={} p={} q={}", i, p, qi);
                for (&p2, &q2) in ps.iter().zip(&q) {
                    if p <= p2 {
                        prop_assert!(qi <= q2, "p {} <= {} but q {} > {}", p, p2, qi, q2);
                    }
                }
            }
        }
    }
}
