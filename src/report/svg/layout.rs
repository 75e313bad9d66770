//! A layered (Sugiyama-style) layout for drawing small DAGs top-down:
//! 1. cycles are broken by reversing every edge that goes against the node
//!    order (the steps' sequence order; a valid DAG report has none);
//! 2. layers by longest path from the sources;
//! 3. edges spanning several layers get one dummy node per layer crossed;
//! 4. crossing reduction by barycenter sweeps (down, then up), keeping the
//!    order with the fewest crossings;
//! 5. x by repeated barycenter alignment under a minimum separation (the
//!    average of a left-packed and a right-packed placement, both feasible).
//!
//! Deterministic: ties are broken by node index. Pure arithmetic, no I/O.
//! No crate was taken for this: the well-kept layered-layout crates bring a
//! graph library and their own renderers, while the reports need a few
//! hundred lines that produce exactly the coordinates the SVG uses.

/// What to lay out: `n` nodes of the given widths, edges as index pairs.
#[derive(Debug, Clone)]
pub(crate) struct LayoutInput {
    pub widths: Vec<f64>,
    pub node_height: f64,
    pub edges: Vec<(usize, usize)>,
    /// Horizontal gap between neighbours in a layer.
    pub gap_x: f64,
    /// Vertical gap between layers.
    pub gap_y: f64,
    /// Width a dummy node (an edge passing through a layer) takes.
    pub dummy_width: f64,
}

/// A point in SVG user units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Point {
    pub x: f64,
    pub y: f64,
}

/// The result: node centres, one route per input edge (kept edges only, in
/// input order), and the size of the drawing.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Layout {
    pub centers: Vec<Point>,
    pub layers: Vec<usize>,
    /// `(edge index in the input, points from source to target)`.
    pub routes: Vec<(usize, Vec<Point>)>,
    pub width: f64,
    pub height: f64,
    /// Crossings left between consecutive layers.
    pub crossings: usize,
}

/// Sweeps of the crossing reduction.
const SWEEPS: usize = 8;
/// Rounds of x alignment.
const ALIGN_ROUNDS: usize = 6;
/// Above this many (real + dummy) nodes, the crossing reduction does fewer sweeps.
const LARGE: usize = 2_000;

/// Lay out a graph. Edges naming a node out of range, self-loops and
/// duplicates are ignored (they have no route in the result).
pub(crate) fn layout(input: &LayoutInput) -> Layout {
    let n = input.widths.len();
    // 1. Clean edges; orient every kept edge from the lower to the higher index.
    let mut seen = std::collections::BTreeSet::new();
    let mut kept: Vec<(usize, usize, usize, bool)> = Vec::new(); // (input idx, lo, hi, reversed)
    for (i, &(a, b)) in input.edges.iter().enumerate() {
        if a >= n || b >= n || a == b {
            continue;
        }
        let (lo, hi, rev) = if a < b { (a, b, false) } else { (b, a, true) };
        if seen.insert((lo, hi)) {
            kept.push((i, lo, hi, rev));
        }
    }
    // 2. Longest-path layering (edges go lo → hi, so one pass in index order works).
    let mut layer = vec![0usize; n];
    let mut by_target: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(_, lo, hi, _) in &kept {
        by_target[hi].push(lo);
    }
    for v in 0..n {
        layer[v] = by_target[v]
            .iter()
            .map(|&u| layer[u] + 1)
            .max()
            .unwrap_or(0);
    }
    let depth = layer.iter().copied().max().map_or(0, |m| m + 1);

    // 3. Virtual graph: real nodes, then dummies; chains of segments per edge.
    let mut widths: Vec<f64> = input.widths.clone();
    let mut vlayer: Vec<usize> = layer.clone();
    let mut segments: Vec<(usize, usize)> = Vec::new();
    let mut chains: Vec<Vec<usize>> = Vec::with_capacity(kept.len());
    for &(_, lo, hi, _) in &kept {
        let mut chain = vec![lo];
        let mut prev = lo;
        for l in layer[lo] + 1..layer[hi] {
            let d = widths.len();
            widths.push(input.dummy_width);
            vlayer.push(l);
            segments.push((prev, d));
            chain.push(d);
            prev = d;
        }
        segments.push((prev, hi));
        chain.push(hi);
        chains.push(chain);
    }
    let total = widths.len();
    let mut up: Vec<Vec<usize>> = vec![Vec::new(); total];
    let mut down: Vec<Vec<usize>> = vec![Vec::new(); total];
    for &(a, b) in &segments {
        down[a].push(b);
        up[b].push(a);
    }

    // 4. Ordering.
    let mut order: Vec<Vec<usize>> = vec![Vec::new(); depth];
    for v in 0..total {
        order[vlayer[v]].push(v);
    }
    let mut pos = vec![0usize; total];
    let index = |order: &[Vec<usize>], pos: &mut [usize]| {
        for row in order {
            for (i, &v) in row.iter().enumerate() {
                pos[v] = i;
            }
        }
    };
    index(&order, &mut pos);
    let mut best = order.clone();
    let mut best_crossings = crossings(&order, &down, &pos);
    let sweeps = if total > LARGE { 2 } else { SWEEPS };
    for sweep in 0..sweeps {
        let downward = sweep % 2 == 0;
        let layers: Vec<usize> = if downward {
            (1..depth).collect()
        } else {
            (0..depth.saturating_sub(1)).rev().collect()
        };
        for l in layers {
            let neighbours = if downward { &up } else { &down };
            let mut keyed: Vec<(f64, usize, usize)> = order[l]
                .iter()
                .enumerate()
                .map(|(i, &v)| {
                    let ns = &neighbours[v];
                    let bary = if ns.is_empty() {
                        i as f64
                    } else {
                        ns.iter().map(|&u| pos[u] as f64).sum::<f64>() / ns.len() as f64
                    };
                    (bary, i, v)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            order[l] = keyed.into_iter().map(|k| k.2).collect();
            for (i, &v) in order[l].iter().enumerate() {
                pos[v] = i;
            }
        }
        let c = crossings(&order, &down, &pos);
        if c < best_crossings {
            best_crossings = c;
            best.clone_from(&order);
        }
    }
    let order = best;
    index(&order, &mut pos);

    // 5. x coordinates.
    let mut x = vec![0.0f64; total];
    for row in &order {
        let mut cursor = 0.0;
        for &v in row {
            x[v] = cursor + widths[v] / 2.0;
            cursor += widths[v] + input.gap_x;
        }
    }
    for round in 0..ALIGN_ROUNDS {
        let downward = round % 2 == 0;
        let layers: Vec<usize> = if downward {
            (1..depth).collect()
        } else {
            (0..depth.saturating_sub(1)).rev().collect()
        };
        for l in layers {
            let neighbours = if downward { &up } else { &down };
            let desired: Vec<f64> = order[l]
                .iter()
                .map(|&v| {
                    let ns = &neighbours[v];
                    if ns.is_empty() {
                        x[v]
                    } else {
                        ns.iter().map(|&u| x[u]).sum::<f64>() / ns.len() as f64
                    }
                })
                .collect();
            let placed = place(&order[l], &desired, &widths, input.gap_x);
            for (&v, px) in order[l].iter().zip(placed) {
                x[v] = px;
            }
        }
    }
    let min_left = (0..total)
        .map(|v| x[v] - widths[v] / 2.0)
        .fold(f64::INFINITY, f64::min);
    let shift = if min_left.is_finite() { -min_left } else { 0.0 };
    for v in &mut x {
        *v += shift;
    }
    let width = (0..total)
        .map(|v| x[v] + widths[v] / 2.0)
        .fold(0.0f64, f64::max);
    let row_h = input.node_height + input.gap_y;
    let y = |l: usize| l as f64 * row_h + input.node_height / 2.0;
    let height = if depth == 0 {
        0.0
    } else {
        depth as f64 * row_h - input.gap_y
    };
    let centers: Vec<Point> = (0..n)
        .map(|v| Point {
            x: x[v],
            y: y(layer[v]),
        })
        .collect();
    let half = input.node_height / 2.0;
    let routes = kept
        .iter()
        .zip(&chains)
        .map(|(&(i, _, _, rev), chain)| {
            let mut pts: Vec<Point> = chain
                .iter()
                .map(|&v| Point {
                    x: x[v],
                    y: y(vlayer[v]),
                })
                .collect();
            if let Some(first) = pts.first_mut() {
                first.y += half;
            }
            if let Some(last) = pts.last_mut() {
                last.y -= half;
            }
            if rev {
                pts.reverse();
            }
            (i, pts)
        })
        .collect();
    Layout {
        centers,
        layers: layer,
        routes,
        width,
        height,
        crossings: best_crossings,
    }
}

/// Positions for one layer as close as possible to `desired`, in order, with
/// at least `gap` between neighbours: the mean of a left-to-right and a
/// right-to-left packing (each feasible, so the mean is too).
fn place(row: &[usize], desired: &[f64], widths: &[f64], gap: f64) -> Vec<f64> {
    let k = row.len();
    if k == 0 {
        return Vec::new();
    }
    let sep = |i: usize| f64::midpoint(widths[row[i]], widths[row[i + 1]]) + gap;
    let mut left = desired.to_vec();
    for i in 1..k {
        left[i] = left[i].max(left[i - 1] + sep(i - 1));
    }
    let mut right = desired.to_vec();
    for i in (0..k - 1).rev() {
        right[i] = right[i].min(right[i + 1] - sep(i));
    }
    left.iter()
        .zip(&right)
        .map(|(a, b)| (a + b) / 2.0)
        .collect()
}

/// Edge crossings between consecutive layers (pairs of segments whose ends
/// are in opposite orders).
fn crossings(order: &[Vec<usize>], down: &[Vec<usize>], pos: &[usize]) -> usize {
    let mut total = 0;
    for row in order {
        let mut segs: Vec<(usize, usize)> = row
            .iter()
            .flat_map(|&v| down[v].iter().map(move |&w| (v, w)))
            .map(|(v, w)| (pos[v], pos[w]))
            .collect();
        segs.sort_unstable();
        for i in 0..segs.len() {
            for j in i + 1..segs.len() {
                if segs[i].0 < segs[j].0 && segs[i].1 > segs[j].1 {
                    total += 1;
                }
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(n: usize, edges: &[(usize, usize)]) -> LayoutInput {
        LayoutInput {
            widths: vec![100.0; n],
            node_height: 40.0,
            edges: edges.to_vec(),
            gap_x: 20.0,
            gap_y: 30.0,
            dummy_width: 10.0,
        }
    }

    fn overlaps(l: &Layout, w: f64) -> bool {
        let n = l.centers.len();
        (0..n).any(|a| {
            (a + 1..n)
                .any(|b| l.layers[a] == l.layers[b] && (l.centers[a].x - l.centers[b].x).abs() < w)
        })
    }

    #[test]
    fn a_chain_is_one_column_and_edges_point_down() {
        let l = layout(&input(4, &[(0, 1), (1, 2), (2, 3)]));
        assert_eq!(l.layers, vec![0, 1, 2, 3]);
        assert!(l.centers.windows(2).all(|p| (p[0].x - p[1].x).abs() < 1e-9));
        assert_eq!(l.routes.len(), 3);
        for (_, pts) in &l.routes {
            assert!(pts.first().unwrap().y < pts.last().unwrap().y);
        }
        assert!((l.height - (4.0 * 70.0 - 30.0)).abs() < 1e-9);
    }

    #[test]
    fn a_skip_edge_routes_through_dummies_beside_the_chain() {
        // 0 → 1 → 2 → 3 and 0 → 3: the long edge crosses layers 1 and 2.
        let l = layout(&input(4, &[(0, 1), (1, 2), (2, 3), (0, 3)]));
        let long = &l.routes.iter().find(|(i, _)| *i == 3).unwrap().1;
        assert_eq!(long.len(), 4, "source, two dummies, target");
        // The dummies sit beside node 1 and node 2, not on them.
        assert!((long[1].x - l.centers[1].x).abs() >= 55.0 - 1e-9);
        assert_eq!(l.crossings, 0);
    }

    #[test]
    fn crossing_reduction_untangles_a_swapped_pair() {
        // 0 → 3, 1 → 2: in index order the two edges cross.
        let l = layout(&input(4, &[(0, 3), (1, 2)]));
        assert_eq!(l.crossings, 0);
        assert!(!overlaps(&l, 120.0));
    }

    #[test]
    fn a_fan_out_has_no_overlapping_nodes() {
        let edges: Vec<(usize, usize)> = (1..8)
            .map(|i| (0, i))
            .chain((1..8).map(|i| (i, 8)))
            .collect();
        let l = layout(&input(9, &edges));
        assert_eq!(l.layers[8], 2);
        assert!(!overlaps(&l, 120.0 - 1e-9));
        // The parent is centred over its children.
        let mean = (1..8).map(|i| l.centers[i].x).sum::<f64>() / 7.0;
        assert!((l.centers[0].x - mean).abs() < 1.0);
    }

    #[test]
    fn cycles_bad_ids_and_duplicates_are_survived() {
        let l = layout(&input(3, &[(0, 1), (1, 2), (2, 0), (1, 1), (0, 9), (0, 1)]));
        assert_eq!(
            l.routes.len(),
            3,
            "self-loop, out-of-range and duplicate dropped"
        );
        // The back edge keeps its direction: it starts at node 2.
        let back = &l.routes.iter().find(|(i, _)| *i == 2).unwrap().1;
        assert!(back.first().unwrap().y > back.last().unwrap().y);
        let empty = layout(&input(0, &[]));
        assert_eq!((empty.width, empty.height), (0.0, 0.0));
    }
}
