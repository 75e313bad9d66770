//! The run report's `judge` section: from one run's counts, and merged
//! over shards or tiers.

use crate::model::run::JudgeSummary;

use crate::llm::config::JudgeMode;
use crate::llm::pipeline::RunStats;
use crate::llm::provider::JudgeIdentity;

/// The section for a run without a judge.
pub(crate) fn none() -> JudgeSummary {
    JudgeSummary {
        provider: JudgeMode::None.as_str().to_owned(),
        ..JudgeSummary::default()
    }
}

/// The section for one judged run.
pub(crate) fn from_stats(
    mode: JudgeMode,
    identity: &JudgeIdentity,
    stats: &RunStats,
    invalid_citations: u64,
) -> JudgeSummary {
    let mut s = JudgeSummary {
        provider: mode.as_str().to_owned(),
        calls: stats.calls,
        cache_hits: stats.cache_hits,
        errors: stats.errors,
        cost_usd: stats.cost_usd,
        model: Some(identity.to_string()),
        questions: stats.items,
        cache_misses: stats.items - stats.cache_hits.min(stats.items),
        not_in_cache: stats.not_in_cache,
        budget_exhausted: stats.budget_exhausted,
        retries: stats.retries,
        fallbacks: stats.fallbacks,
        reasked: stats.reasked,
        input_tokens: stats.input_tokens,
        output_tokens: stats.output_tokens,
        error_rate: None,
        error_classes: stats.error_classes.clone(),
        invalid_citations,
        per_case: std::collections::BTreeMap::new(),
        root_cause_questions: 0,
        cost_incomplete: stats.cost_incomplete,
        first_error: stats.first_error.clone(),
        notes: stats.notes.clone(),
    };
    s.error_rate = error_rate(&s);
    s
}

/// Share of the questions the budget let through that got no usable answer:
/// `(errors + not_in_cache) / (questions − budget_exhausted)`; `None` when the
/// budget stopped every question (or none was asked). A replay miss is an
/// answer the gate does not have, so it counts as an error (issue 21).
pub(crate) fn error_rate(s: &JudgeSummary) -> Option<f64> {
    let attempted = s.questions.saturating_sub(s.budget_exhausted);
    (attempted > 0).then(|| (s.errors + s.not_in_cache) as f64 / attempted as f64)
}

/// Sums over `parts` (shards of one run, or tiers of one suite).
pub(crate) fn merge<'a>(parts: impl IntoIterator<Item = &'a JudgeSummary>) -> JudgeSummary {
    let mut out: Option<JudgeSummary> = None;
    for p in parts {
        let Some(o) = out.as_mut() else {
            out = Some(p.clone());
            continue;
        };
        o.calls += p.calls;
        o.cache_hits += p.cache_hits;
        o.errors += p.errors;
        o.cost_usd += p.cost_usd;
        if o.model.is_none() {
            o.model.clone_from(&p.model);
        }
        o.questions += p.questions;
        o.cache_misses += p.cache_misses;
        o.not_in_cache += p.not_in_cache;
        o.budget_exhausted += p.budget_exhausted;
        o.retries += p.retries;
        o.fallbacks += p.fallbacks;
        o.reasked += p.reasked;
        o.input_tokens += p.input_tokens;
        o.output_tokens += p.output_tokens;
        for (k, v) in &p.error_classes {
            *o.error_classes.entry(k.clone()).or_default() += v;
        }
        o.invalid_citations += p.invalid_citations;
        for (k, v) in &p.per_case {
            o.per_case.entry(k.clone()).or_insert(*v);
        }
        o.root_cause_questions += p.root_cause_questions;
        o.cost_incomplete |= p.cost_incomplete;
        if o.first_error.is_none() {
            o.first_error.clone_from(&p.first_error);
        }
        for n in &p.notes {
            if !o.notes.contains(n) {
                o.notes.push(n.clone());
            }
        }
    }
    let mut out = out.unwrap_or_else(none);
    out.error_rate = error_rate(&out);
    out
}

/// `judge: …` for terminal and Markdown summaries; `None` without a judge.
pub(crate) fn one_line(s: &JudgeSummary) -> Option<String> {
    if s.provider == "none" {
        return None;
    }
    let mut line = format!(
        "judge: {} ({}) · {} questions · {} from the cache · {} calls · {} errors",
        s.model.as_deref().unwrap_or("?"),
        s.provider,
        s.questions,
        s.cache_hits,
        s.calls,
        s.errors
    );
    // Replay misses count in the error rate (issue 21): said so when there are any, so
    // "0 errors (5.6%)" never reads as a contradiction.
    match (s.error_rate, s.not_in_cache) {
        (Some(r), 0) => line.push_str(&format!(" ({:.1}%)", 100.0 * r)),
        (Some(r), n) => line.push_str(&format!(
            " · {n} not in the cache ({:.1}% without an answer, misses counted as errors)",
            100.0 * r
        )),
        (None, 0) => {}
        (None, n) => line.push_str(&format!(" · {n} not in the cache")),
    }
    if s.budget_exhausted > 0 {
        line.push_str(&format!(" · {} past the budget", s.budget_exhausted));
    }
    if s.calls > 0 {
        line.push_str(&format!(
            " · {} + {} tokens · ${:.4}{}",
            s.input_tokens,
            s.output_tokens,
            s.cost_usd,
            if s.cost_incomplete {
                " (no price for some calls)"
            } else {
                ""
            }
        ));
    }
    if s.root_cause_questions > 0 {
        line.push_str(&format!(
            " · root cause: 1 question per failed case ({})",
            s.root_cause_questions
        ));
    }
    if s.invalid_citations > 0 {
        line.push_str(&format!(
            " · {} citations of missing spans",
            s.invalid_citations
        ));
    }
    for (feature, n) in &s.per_case {
        line.push_str(&format!(" · {feature}: {n} per case"));
    }
    Some(line)
}

/// The provider's own words, one line each (untrusted: the caller escapes them for
/// where they go): what it made the run change, and the first error when questions failed.
pub(crate) fn provider_lines(s: &JudgeSummary) -> Vec<String> {
    let mut out: Vec<String> = s.notes.iter().map(|n| format!("judge: {n}")).collect();
    if s.errors > 0
        && let Some(e) = &s.first_error
    {
        out.push(format!("judge: first error: {e}"));
    }
    out
}

/// Who judged a run: `none`, or `provider/model` (a replay of a cache
/// recorded from `openai/m` is judged by `openai/m`).
pub(crate) fn judged_by(s: &JudgeSummary) -> String {
    match (&s.model, s.provider.as_str()) {
        (Some(m), p) if p != "none" => m.clone(),
        _ => "none".to_owned(),
    }
}

/// Why a head run's judged metrics are not comparable with its baseline's,
/// when they were judged differently.
pub(crate) fn mismatch(base: &JudgeSummary, head: &JudgeSummary) -> Option<String> {
    let (b, h) = (judged_by(base), judged_by(head));
    (b != h).then(|| {
        format!(
            "the baseline was judged by `{b}` and this run by `{h}`: tier-3 checkpoints, judged step scores, workflow_quality, compliance and semantic task success move with the judge, not the agent; update the baseline with the same judge"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_leave_out_what_never_reached_a_judge() {
        let a = JudgeSummary {
            provider: "openai".into(),
            questions: 10,
            errors: 2,
            budget_exhausted: 5,
            calls: 7,
            ..JudgeSummary::default()
        };
        assert_eq!(error_rate(&a), Some(0.4));
        // A replay miss is a question without an answer: it counts.
        let replay = JudgeSummary {
            provider: "replay".into(),
            questions: 10,
            not_in_cache: 3,
            errors: 1,
            ..JudgeSummary::default()
        };
        assert_eq!(error_rate(&replay), Some(0.4));
        let line = one_line(&JudgeSummary {
            error_rate: error_rate(&replay),
            ..replay.clone()
        })
        .unwrap();
        assert!(
            line.ends_with(
                "1 errors · 3 not in the cache (40.0% without an answer, misses counted as errors)"
            ),
            "{line}"
        );
        let b = JudgeSummary {
            provider: "openai".into(),
            questions: 10,
            errors: 0,
            ..JudgeSummary::default()
        };
        let m = merge([&a, &b]);
        assert_eq!((m.questions, m.errors, m.calls), (20, 2, 7));
        assert_eq!(m.error_rate, Some(2.0 / 15.0));
        assert_eq!(error_rate(&none()), None);
        assert_eq!(merge(std::iter::empty()).provider, "none");
    }

    #[test]
    fn a_replay_is_judged_by_the_judge_it_replays() {
        let live = JudgeSummary {
            provider: "openai".into(),
            model: Some("openai/m".into()),
            ..JudgeSummary::default()
        };
        let replay = JudgeSummary {
            provider: "replay".into(),
            ..live.clone()
        };
        assert_eq!(mismatch(&live, &replay), None);
        assert!(
            mismatch(&none(), &replay)
                .unwrap()
                .contains("judged by `none` and this run by `openai/m`")
        );
        assert_eq!(mismatch(&none(), &none()), None);
    }
}
