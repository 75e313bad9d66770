//! A trace's spans by id, for the DAG build: span indices sorted by id,
//! looked up by binary search. A hash map of the ids was 15 MB of the
//! build's peak on a 250,000-span trace; this list is 1 MB (issue 25).

use crate::trace::model::Span;

pub(crate) struct SpanIds {
    /// Span indices by id, equal ids in index order. `u32`: a file under
    /// any read cap holds fewer than 2^32 spans.
    sorted: Vec<u32>,
}

impl SpanIds {
    pub(crate) fn new(spans: &[Span]) -> Self {
        let mut sorted: Vec<u32> = (0..spans.len())
            .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
            .collect();
        // Stable: among equal ids the first span comes first.
        sorted.sort_by(|&a, &b| spans[a as usize].id.cmp(&spans[b as usize].id));
        Self { sorted }
    }

    /// The index of the first span (in `spans`, the list this was made of)
    /// with this id.
    pub(crate) fn first(&self, spans: &[Span], id: &str) -> Option<usize> {
        let at = self
            .sorted
            .partition_point(|&j| spans[j as usize].id.as_str() < id);
        let j = *self.sorted.get(at)? as usize;
        (spans[j].id == id).then_some(j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::model::SpanKind;

    /// Every id finds the first span that has it, and an id no span has
    /// finds none, as a scan does.
    #[test]
    fn an_id_finds_its_first_span() {
        let ids = ["b", "a", "c", "a", "", "b", "é", "a"];
        let spans: Vec<Span> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| Span::new(*id, "x", SpanKind::Llm, i))
            .collect();
        let index = SpanIds::new(&spans);
        for id in ids.iter().chain(&["d", "aa", "0"]) {
            let scan = spans.iter().position(|s| s.id == *id);
            assert_eq!(index.first(&spans, id), scan, "{id:?}");
        }
        assert_eq!(SpanIds::new(&[]).first(&[], "a"), None);
    }
}
