//! Adjacency lists of the DAG in one flat array (compressed sparse rows):
//! a node's parents or children are a slice of it. A list per node cost
//! 56 bytes per node and direction (a `Vec` and its smallest allocation)
//! for the one or two neighbours most nodes have (issue 25).

use std::ops::Index;

#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Adjacency {
    /// Node `i`'s neighbours are `targets[start[i]..start[i + 1]]`.
    start: Vec<usize>,
    targets: Vec<usize>,
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
        let mut start = vec![0usize; n + 1];
        for (node, _) in pairs.clone() {
            start[node + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut targets = vec![0usize; start[n]];
        for (node, neighbour) in pairs {
            targets[next[node]] = neighbour;
            next[node] += 1;
        }
        Self { start, targets }
    }

    pub(super) fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// Node `i`'s neighbours; none for a node out of range.
    pub(super) fn get(&self, i: usize) -> &[usize] {
        match (self.start.get(i), self.start.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.targets[a..b],
            _ => &[],
        }
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &[usize]> {
        (0..self.len()).map(|i| self.get(i))
    }
}

impl Index<usize> for Adjacency {
    type Output = [usize];

    fn index(&self, i: usize) -> &[usize] {
        self.get(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_keep_the_order_of_the_pairs_and_empty_nodes_are_empty() {
        let pairs = [(2, 7), (0, 1), (2, 3), (0, 4)];
        let a = Adjacency::from_pairs(4, pairs.iter().copied());
        assert_eq!(a.len(), 4);
        assert_eq!(&a[0], [1, 4]);
        assert_eq!(&a[1], [] as [usize; 0]);
        assert_eq!(&a[2], [7, 3]);
        assert_eq!(&a[3], [] as [usize; 0]);
        assert_eq!(a.get(4), [] as [usize; 0]);
        assert_eq!(
            a.iter().map(<[usize]>::len).collect::<Vec<_>>(),
            [2, 0, 2, 0]
        );
        let none = Adjacency::empty(3);
        assert_eq!(none.len(), 3);
        assert!(none.iter().all(<[usize]>::is_empty));
        assert_eq!(Adjacency::default().len(), 0);
    }
}
