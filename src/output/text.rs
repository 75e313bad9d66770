//! Small text helpers shared by every renderer.

/// `1 case`, `2 cases`: all pluralisation goes through here.
pub fn plural(n: usize, singular: &str, plural: &str) -> String {
    if n == 1 {
        format!("{n} {singular}")
    } else {
        format!("{n} {plural}")
    }
}

/// Smallest Jaro–Winkler similarity for a "did you mean" suggestion: a typo, not another name.
pub const SIMILAR: f64 = 0.8;

/// The candidate most similar to `word` (Jaro–Winkler; ties to the smaller name) whose
/// similarity is at least `min`.
pub fn closest<'c>(
    word: &str,
    candidates: impl IntoIterator<Item = &'c str>,
    min: f64,
) -> Option<&'c str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(score, _)| *score >= min)
        .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)))
        .map(|(_, c)| c)
}

/// At most `max` characters, with `…` when cut.
pub fn truncate_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// At most `cap` characters: two thirds from the head, one third from the
/// tail, and a marker saying how much was cut.
pub fn cap_chars(text: &str, cap: usize) -> String {
    let n = text.chars().count();
    if n <= cap {
        return text.to_owned();
    }
    let head = cap * 2 / 3;
    let tail = cap.saturating_sub(head);
    let start_tail = n - tail;
    let mut out: String = text.chars().take(head).collect();
    out.push_str(&format!("\n[… {} characters cut …]\n", n - head - tail));
    out.extend(text.chars().skip(start_tail));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plural_and_truncate() {
        assert_eq!(plural(1, "case", "cases"), "1 case");
        assert_eq!(plural(0, "case", "cases"), "0 cases");
        assert_eq!(truncate_chars("héllo", 3), "hé…");
        assert_eq!(truncate_chars("ok", 3), "ok");
    }
}
