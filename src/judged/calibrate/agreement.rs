//! Agreement between two raters (a judge and a human) on the same items:
//! raw agreement, Cohen's κ (nominal), Krippendorff's α (nominal or
//! ordinal) and the confusion matrix. Pure functions over pairs of category
//! indices; checked against scikit-learn and the `krippendorff` package in
//! `tests/fixtures/calibration/` (`scripts/calibration_reference.py`).
//!
//! Undefined values are `None`, never NaN: κ when the chance agreement is 1
//! (both raters used one and the same category throughout), α when the
//! expected disagreement is 0 (a single value overall).

use serde::Serialize;

/// A rating scale: its categories in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scale {
    pub name: &'static str,
    pub categories: Vec<String>,
    /// Ordered categories: α uses the ordinal metric.
    pub ordinal: bool,
}

impl Scale {
    /// Tier-3 verdicts, FAIL < PARTIAL < PASS (nominal for κ and α).
    pub fn verdicts() -> Self {
        Self {
            name: "checkpoint verdicts (FAIL/PARTIAL/PASS)",
            categories: vec!["FAIL".into(), "PARTIAL".into(), "PASS".into()],
            ordinal: false,
        }
    }

    /// An integer scale `lo..=hi` (1–5 step scores, 0–3 trace judges).
    pub fn integers(name: &'static str, lo: u8, hi: u8) -> Self {
        Self {
            name,
            categories: (lo..=hi).map(|v| v.to_string()).collect(),
            ordinal: true,
        }
    }

    pub fn index(&self, label: &str) -> Option<usize> {
        self.categories.iter().position(|c| c == label)
    }
}

/// Agreement statistics of one set of paired labels.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agreement {
    pub n: usize,
    /// Share of items with the same label.
    pub agreement: f64,
    /// Cohen's κ, unweighted (nominal).
    pub cohen_kappa: Option<f64>,
    pub krippendorff_alpha: Option<f64>,
    /// `nominal` or `ordinal`.
    pub alpha_metric: &'static str,
    pub categories: Vec<String>,
    /// `confusion[human][judge]`: item counts.
    pub confusion: Vec<Vec<usize>>,
}

/// Statistics of `pairs` (human category, judge category) on a scale of
/// `k` categories; `None` without pairs.
pub fn agreement(pairs: &[(usize, usize)], scale: &Scale) -> Option<Agreement> {
    let k = scale.categories.len();
    if pairs.is_empty() || pairs.iter().any(|&(h, j)| h >= k || j >= k) {
        return None;
    }
    let mut confusion = vec![vec![0usize; k]; k];
    for &(h, j) in pairs {
        confusion[h][j] += 1;
    }
    let n = pairs.len();
    let agree: usize = (0..k).map(|c| confusion[c][c]).sum();
    Some(Agreement {
        n,
        agreement: agree as f64 / n as f64,
        cohen_kappa: cohen_kappa(&confusion),
        krippendorff_alpha: krippendorff_alpha(&confusion, scale.ordinal),
        alpha_metric: if scale.ordinal { "ordinal" } else { "nominal" },
        categories: scale.categories.clone(),
        confusion,
    })
}

/// Cohen's κ from a confusion matrix: `(p_o − p_e) / (1 − p_e)`.
pub fn cohen_kappa(confusion: &[Vec<usize>]) -> Option<f64> {
    let k = confusion.len();
    let n: usize = confusion.iter().flatten().sum();
    if n == 0 {
        return None;
    }
    let n = n as f64;
    let observed = (0..k).map(|c| confusion[c][c] as f64).sum::<f64>() / n;
    let expected: f64 = (0..k)
        .map(|c| {
            let row: usize = confusion[c].iter().sum();
            let col: usize = confusion.iter().map(|r| r[c]).sum();
            (row as f64 / n) * (col as f64 / n)
        })
        .sum();
    if (1.0 - expected).abs() < 1e-12 {
        return None;
    }
    Some((observed - expected) / (1.0 - expected))
}

/// Krippendorff's α for two raters and no missing values:
/// `α = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck` over the coincidence
/// matrix `o` (each item adds 1 to `o_hj` and to `o_jh`), `n_c` its margins
/// and `n = 2 × items`. Nominal `δ²` is 1 for different categories; ordinal
/// `δ²` is `(Σ_{g=c..k} n_g − (n_c + n_k)/2)²` (Krippendorff 2011, "Computing
/// Krippendorff's Alpha-Reliability", §F).
pub fn krippendorff_alpha(confusion: &[Vec<usize>], ordinal: bool) -> Option<f64> {
    let k = confusion.len();
    let mut o = vec![vec![0f64; k]; k];
    for h in 0..k {
        for j in 0..k {
            let v = confusion[h][j] as f64;
            o[h][j] += v;
            o[j][h] += v;
        }
    }
    let margins: Vec<f64> = o.iter().map(|r| r.iter().sum()).collect();
    let n: f64 = margins.iter().sum();
    if n < 2.0 {
        return None;
    }
    let delta2 = |c: usize, d: usize| -> f64 {
        if c == d {
            return 0.0;
        }
        if !ordinal {
            return 1.0;
        }
        let (lo, hi) = (c.min(d), c.max(d));
        let span: f64 = margins[lo..=hi].iter().sum();
        let v = span - f64::midpoint(margins[lo], margins[hi]);
        v * v
    };
    let mut observed = 0.0;
    let mut expected = 0.0;
    for c in 0..k {
        for d in 0..k {
            let w = delta2(c, d);
            observed += o[c][d] * w;
            expected += margins[c] * margins[d] * w;
        }
    }
    if expected.abs() < 1e-12 {
        return None;
    }
    Some(1.0 - (n - 1.0) * observed / expected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perfect_and_chance_agreement() {
        let s = Scale::integers("steps", 1, 5);
        let perfect: Vec<(usize, usize)> = (0..5).map(|c| (c, c)).collect();
        let a = agreement(&perfect, &s).unwrap();
        assert_eq!((a.n, a.agreement), (5, 1.0));
        assert_eq!(a.cohen_kappa, Some(1.0));
        assert_eq!(a.krippendorff_alpha, Some(1.0));
        assert_eq!(a.confusion[2], [0, 0, 1, 0, 0]);
        // One category throughout: κ and α are undefined, not NaN.
        let same = agreement(&[(2, 2), (2, 2)], &s).unwrap();
        assert_eq!((same.cohen_kappa, same.krippendorff_alpha), (None, None));
        assert!(agreement(&[], &s).is_none());
        assert!(agreement(&[(0, 9)], &s).is_none());
    }

    #[test]
    fn ordinal_alpha_punishes_far_disagreements_more() {
        let s = Scale::integers("steps", 1, 5);
        let base = [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (1, 1)];
        let mut near = base.to_vec();
        near.push((2, 3));
        let mut far = base.to_vec();
        far.push((0, 4));
        let a_near = agreement(&near, &s).unwrap().krippendorff_alpha.unwrap();
        let a_far = agreement(&far, &s).unwrap().krippendorff_alpha.unwrap();
        assert!(a_near > a_far, "{a_near} vs {a_far}");
    }
}
