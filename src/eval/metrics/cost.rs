//! Tokens, cost and latency of one trace.
//!
//! - Tokens: summed over model spans that record them; if none does, over
//!   every span that does (so an agent span that totals its children is not
//!   counted twice next to them).
//! - Cost: per token-bearing span, the suite's `pricing:` entry for its model
//!   (exact name, else the longest price key that prefixes the model name,
//!   e.g. `gpt-4o` for `gpt-4o-2024-08-06`), else the cost the trace recorded
//!   on the span. `None` when no span could be priced; a warning names every
//!   model that had tokens but no price.
//! - Latency: the duration of the single root span when it has clocks, else
//!   the sum of model and tool span durations, else `None` (chat formats).

use std::collections::{BTreeMap, BTreeSet};

use crate::model::run::Cost;
use crate::spec::model::PriceSpec;
use crate::trace::model::{Span, SpanKind, Trace};

/// The price entry for `model`.
pub(crate) fn price_for<'a>(
    pricing: &'a BTreeMap<String, PriceSpec>,
    model: &str,
) -> Option<&'a PriceSpec> {
    pricing.get(model).or_else(|| {
        pricing
            .iter()
            .filter(|(key, _)| model.starts_with(key.as_str()))
            .max_by_key(|(key, _)| key.len())
            .map(|(_, price)| price)
    })
}

/// Compute the cost block of one trace, with warnings about unpriced models.
pub(crate) fn cost_metrics(
    trace: &Trace,
    pricing: &BTreeMap<String, PriceSpec>,
) -> (Cost, Vec<String>) {
    let model_spans: Vec<&Span> = trace
        .spans
        .iter()
        .filter(|s| s.kind == SpanKind::Llm && s.tokens().is_some())
        .collect();
    let token_spans: Vec<&Span> = if model_spans.is_empty() {
        trace
            .spans
            .iter()
            .filter(|s| s.tokens().is_some())
            .collect()
    } else {
        model_spans
    };

    let mut cost = Cost::default();
    let mut usd: Option<f64> = None;
    let mut unpriced: BTreeSet<String> = BTreeSet::new();
    for span in &token_spans {
        let tokens = span.tokens().unwrap_or_default();
        cost.input_tokens += tokens.input;
        cost.output_tokens += tokens.output;
        let priced = span.model().and_then(|m| price_for(pricing, m)).map(|p| {
            tokens.input as f64 * p.input_per_mtok / 1e6
                + tokens.output as f64 * p.output_per_mtok / 1e6
        });
        match priced.or(span.cost()) {
            Some(c) => *usd.get_or_insert(0.0) += c,
            None => {
                unpriced.insert(span.model().unwrap_or("(no model)").to_owned());
            }
        }
    }
    // Costs recorded on spans without token counts (e.g. a tool that bills).
    for span in trace.spans.iter().filter(|s| s.tokens().is_none()) {
        if let Some(c) = span.cost() {
            *usd.get_or_insert(0.0) += c;
        }
    }
    cost.cost_usd = usd;
    cost.latency_ms = latency_ms(trace);

    let warnings = if unpriced.is_empty() {
        Vec::new()
    } else {
        vec![format!(
            "no price for model{} {}: add them under `pricing:` in the suite; their tokens are left out of cost_usd",
            if unpriced.len() == 1 { "" } else { "s" },
            unpriced
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )]
    };
    (cost, warnings)
}

fn latency_ms(trace: &Trace) -> Option<f64> {
    let roots: Vec<&Span> = trace.spans.iter().filter(|s| s.parent.is_none()).collect();
    if let [root] = roots.as_slice()
        && let Some(ms) = root.duration_ms()
    {
        return Some(ms);
    }
    let durations: Vec<f64> = trace
        .spans
        .iter()
        .filter(|s| matches!(s.kind, SpanKind::Llm | SpanKind::Tool | SpanKind::Retriever))
        .filter_map(Span::duration_ms)
        .collect();
    (!durations.is_empty()).then(|| durations.iter().sum())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::model::{Tokens, TraceFormat};

    fn llm(id: &str, model: &str, input: u64, output: u64) -> Span {
        let mut s = Span::new(id, "chat", SpanKind::Llm, 0);
        s.parent = Some("root".into());
        s.set_model(Some(model.into()));
        s.set_tokens(Some(Tokens { input, output }));
        s.start = Some(1_000_000);
        s.end = Some(3_000_000);
        s
    }

    fn trace(spans: Vec<Span>) -> Trace {
        Trace {
            id: "t".into(),
            format: TraceFormat::Otlp,
            spans,
            final_output: None,
            metadata: BTreeMap::new(),
            warnings: Vec::new(),
        }
    }

    #[test]
    fn prices_tokens_and_falls_back_to_recorded_costs() {
        let pricing: BTreeMap<String, PriceSpec> = serde_saphyr::from_str(
            "gpt-4o: {input_per_mtok: 2.5, output_per_mtok: 10}\ngpt-4o-mini: {input_per_mtok: 0.15, output_per_mtok: 0.6}\n",
        )
        .unwrap();
        let mut root = Span::new("root", "agent", SpanKind::Agent, 0);
        root.start = Some(0);
        root.end = Some(10_000_000);
        root.set_tokens(Some(Tokens {
            input: 9,
            output: 9,
        })); // a total: ignored next to model spans
        let mut recorded = llm("c", "claude-x", 100, 100);
        recorded.set_cost(Some(0.5));
        let spans = vec![
            root,
            llm("a", "gpt-4o-2024-08-06", 1_000_000, 100_000),
            llm("b", "gpt-4o-mini", 1_000_000, 0),
            recorded,
            llm("d", "llama", 5, 5),
        ];
        let (cost, warnings) = cost_metrics(&trace(spans), &pricing);
        assert_eq!(
            (cost.input_tokens, cost.output_tokens),
            (2_000_105, 100_105)
        );
        // 2.5 + 1.0 (gpt-4o prefix) + 0.15 (gpt-4o-mini exact, not the shorter prefix) + 0.5 recorded
        assert!(
            (cost.cost_usd.unwrap() - 4.15).abs() < 1e-9,
            "{:?}",
            cost.cost_usd
        );
        assert_eq!(cost.latency_ms, Some(10.0));
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("`llama`"), "{}", warnings[0]);
    }

    #[test]
    fn no_clocks_and_no_prices_give_none() {
        let mut s = Span::new("m0", "assistant", SpanKind::Llm, 0);
        s.set_tokens(None);
        let (cost, warnings) = cost_metrics(&trace(vec![s]), &BTreeMap::new());
        assert_eq!(cost, Cost::default());
        assert!(warnings.is_empty());
    }
}
