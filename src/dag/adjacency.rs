//! Adjacency lists of the DAG in one flat array (compressed sparse rows):
//! a node's parents or children are a slice of it. A list per node cost
//! 56 bytes per node and direction (a `Vec` and its smallest allocation)
//! for the one or two neighbours most nodes have (issue 25).

use std::ops::Index;

#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Adjacency {
    /// Node `i`'s neighbours are `targets[start[i]..start[i + 1]]`.
    start: Vec<u32>,
    targets: Vec<u32>,
}

impl Adjacency {
    /// `n` nodes without neighbours.
    pub(super) fn empty(n: usize) -> Self {
        Self {
            start: vec![0; n + 1],
            targets: Vec::new(),
        }
    }

    /// The lists of `n` nodes from `(node, neighbour)` pairs: each node's
    /// neighbours in the order the pairs give them.
    pub(super) fn from_pairs(
        n: usize,
        pairs: impl Iterator<Item = (usize, usize)> + Clone,
    ) -> Self {
        // Indices and offsets as `u32`: a file under any read cap holds
        // fewer than 2^32 steps and edges (issue 25: half the memory).
        let index = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
        let mut start = vec![0u32; n + 1];
        for (node, _) in pairs.clone() {
            start[node + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut targets = vec![0u32; start[n] as usize];
        for (node, neighbour) in pairs {
            targets[next[node] as usize] = index(neighbour);
            next[node] += 1;
        }
        Self { start, targets }
    }

    pub(super) fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// Node `i`'s neighbours; none for a node out of range.
    pub(super) fn get(&self, i: usize) -> &[u32] {
        match (self.start.get(i), self.start.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.targets[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The neighbours of node `i` as node indices.
    pub(super) fn nodes(&self, i: usize) -> Neighbours<'_> {
        Neighbours(self.get(i).iter())
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &[u32]> {
        (0..self.len()).map(|i| self.get(i))
    }
}

impl Index<usize> for Adjacency {
    type Output = [u32];

    fn index(&self, i: usize) -> &[u32] {
        self.get(i)
    }
}

/// The parents or children of a node, as node indices (kept as `u32`
/// in the adjacency lists).
#[derive(Debug, Clone)]
pub struct Neighbours<'a>(std::slice::Iter<'a, u32>);

impl Iterator for Neighbours<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        self.0.next().map(|&i| i as usize)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Neighbours<'_> {
    fn next_back(&mut self) -> Option<usize> {
        self.0.next_back().map(|&i| i as usize)
    }
}

impl ExactSizeIterator for Neighbours<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_keep_the_order_of_the_pairs_and_empty_nodes_are_empty() {
        let pairs = [(2, 7), (0, 1), (2, 3), (0, 4)];
        let a = Adjacency::from_pairs(4, pairs.iter().copied());
        assert_eq!(a.len(), 4);
        assert_eq!(&a[0], [1, 4]);
        assert_eq!(&a[1], [] as [u32; 0]);
        assert_eq!(&a[2], [7, 3]);
        assert_eq!(&a[3], [] as [u32; 0]);
        assert_eq!(a.get(4), [] as [u32; 0]);
        assert_eq!(a.iter().map(<[u32]>::len).collect::<Vec<_>>(), [2, 0, 2, 0]);
        let none = Adjacency::empty(3);
        assert_eq!(none.len(), 3);
        assert!(none.iter().all(<[u32]>::is_empty));
        assert_eq!(Adjacency::default().len(), 0);
    }
}
