//! `calibrate`'s output: a text summary (agreement, κ, α, the confusion
//! matrix, per-item agreement, warnings and what could not be paired) or
//! the report as JSON.

use std::fmt::Write as _;

use super::pairing::{CalibrationReport, Group};
use crate::output::truncate_chars;

fn num(v: Option<f64>) -> String {
    v.map_or_else(|| "undefined".to_owned(), |x| format!("{x:.3}"))
}

fn group(out: &mut String, g: &Group) {
    let Some(s) = &g.stats else {
        let _ = writeln!(out, "{}: no labels paired", g.scale);
        return;
    };
    let _ = writeln!(
        out,
        "{}: n {} · agreement {:.1}% · Cohen's κ {} · Krippendorff's α ({}) {}{}",
        g.scale,
        s.n,
        100.0 * s.agreement,
        num(s.cohen_kappa),
        s.alpha_metric,
        num(s.krippendorff_alpha),
        if g.below_threshold {
            " · BELOW THRESHOLD"
        } else {
            ""
        }
    );
    let width = s
        .categories
        .iter()
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(1)
        .max(5);
    let _ = write!(
        out,
        "  confusion (rows: labels, columns: judge)\n  {:>width$}",
        ""
    );
    for c in &s.categories {
        let _ = write!(out, " {c:>width$}");
    }
    out.push('\n');
    for (c, row) in s.categories.iter().zip(&s.confusion) {
        let _ = write!(out, "  {c:>width$}");
        for v in row {
            let _ = write!(out, " {v:>width$}");
        }
        out.push('\n');
    }
    for (item, (n, agree)) in &g.by_item {
        let _ = writeln!(out, "  {item}: {agree} of {n} agree");
    }
}

pub(crate) fn render_text(r: &CalibrationReport) -> String {
    let mut out = format!(
        "calibrate: suite {} · judge {} · {} labels from {}\nlabelled by: {}\n\n",
        r.suite,
        r.judge,
        r.labels,
        r.golden,
        truncate_chars(&r.source, 300)
    );
    group(&mut out, &r.checkpoints);
    out.push('\n');
    group(&mut out, &r.steps);
    if let Some(gpa) = &r.gpa {
        out.push('\n');
        group(&mut out, gpa);
    }
    if !r.unpaired.is_empty() {
        let _ = writeln!(out, "\nnot paired ({}):", r.unpaired.len());
        for u in &r.unpaired {
            let _ = writeln!(out, "  {} {}: {}", u.case, u.item, u.reason);
        }
    }
    let _ = writeln!(
        out,
        "\nthreshold: Cohen's κ ≥ {:.2} (`judge.kappa_threshold`)",
        r.kappa_threshold
    );
    out
}
