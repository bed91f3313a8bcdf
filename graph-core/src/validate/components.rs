//! [`verify_cc`]: a check of a connected-components labelling against the
//! edge list, whoever computed it.

use super::reference;
use crate::alloc::vec_or_exit;
use crate::edge_list::EdgeList;

/// Checks a component labelling of `list` without trusting its producer:
/// one label per vertex; both ends of every edge share a label; every label is
/// the smallest vertex of its class (`labels[v] <= v` and
/// `labels[labels[v]] == labels[v]`); and there are exactly as many classes as
/// the graph has components (counted here by a union-find,
/// [`reference::cc`]), so no component was split. Returns the number of
/// components, or what is wrong. On a directed list the components are the
/// weakly connected ones (arcs taken as undirected edges).
///
/// ```
/// use graph_core::validate::verify_cc;
/// use graph_core::{EdgeList, PackedEdge};
/// let list = EdgeList::from_edges(3, vec![PackedEdge::new(0, 2, 1.0)]).unwrap();
/// assert_eq!(verify_cc(&list, &[0, 1, 0]), Ok(2));
/// assert!(verify_cc(&list, &[0, 1, 2]).unwrap_err().contains("edge (0, 2)"));
/// ```
pub fn verify_cc(list: &EdgeList<'_>, labels: &[u64]) -> Result<u64, String> {
    let n = list.num_vertices();
    check_count(n, labels)?;
    for e in list.edges() {
        let (a, b) = (labels[e.u as usize], labels[e.v as usize]);
        if a != b {
            return Err(joins(e.u, e.v, a, b));
        }
    }
    let classes = check_classes(labels)?;
    let components = reference::cc(list)
        .iter()
        .enumerate()
        .filter(|&(v, &l)| l == v as u64)
        .count() as u64;
    compare(classes, components)
}

/// The rows of a whole graph, read in vertex order: a function that calls
/// its argument with each vertex and its row (neighbour ids), and says
/// what is wrong with the rows if they cannot be read. Every edge (arc)
/// must be in at least one row.
pub type RowPass<'a> = Box<dyn FnOnce(&mut dyn FnMut(usize, &[u32])) -> Result<(), String> + 'a>;

/// [`verify_cc`] on a graph of `n` vertices given as rows instead of a
/// list (a built file's, read piece by piece,
/// [`BuiltGraph::for_each_row`](crate::io::built::BuiltGraph::for_each_row)):
/// the same checks, each edge checked in every row that holds it, the
/// components counted by a union-find over the rows (4 bytes per vertex).
/// The same verdict and count; a failing edge may be another one than the
/// list's first.
///
/// ```
/// use graph_core::validate::verify_cc_rows;
/// // Vertices 0 and 2 joined, 1 alone: each edge in both rows.
/// let rows = |f: &mut dyn FnMut(usize, &[u32])| {
///     for (v, row) in [&[2u32][..], &[], &[0]].into_iter().enumerate() {
///         f(v, row);
///     }
///     Ok(())
/// };
/// assert_eq!(verify_cc_rows(3, &[0, 1, 0], Box::new(rows)), Ok(2));
/// assert!(verify_cc_rows(3, &[0, 1, 2], Box::new(rows)).unwrap_err().contains("edge (0, 2)"));
/// assert!(verify_cc_rows(3, &[0, 0, 0], Box::new(rows)).unwrap_err().contains("no path"));
/// ```
pub fn verify_cc_rows(n: u64, labels: &[u64], rows: RowPass<'_>) -> Result<u64, String> {
    check_count(n, labels)?;
    let mut parent: Vec<u32> = vec_or_exit(n as usize, 0, "union-find parents");
    parent
        .iter_mut()
        .enumerate()
        .for_each(|(v, p)| *p = v as u32);
    let mut first_bad = None;
    rows(&mut |u, row| {
        for &v in row {
            let (a, b) = (labels[u], labels[v as usize]);
            if a != b && first_bad.is_none() {
                first_bad = Some(joins(u as u32, v, a, b));
            }
            let (a, b) = (find(&mut parent, u as u32), find(&mut parent, v));
            if a != b {
                parent[a.max(b) as usize] = a.min(b);
            }
        }
    })?;
    if let Some(e) = first_bad {
        return Err(e);
    }
    let classes = check_classes(labels)?;
    let components = (0..n as u32).filter(|&v| parent[v as usize] == v).count() as u64;
    compare(classes, components)
}

/// The root of `x`'s set, halving the path on the way.
fn find(p: &mut [u32], mut x: u32) -> u32 {
    while p[x as usize] != x {
        let gp = p[p[x as usize] as usize];
        p[x as usize] = gp;
        x = gp;
    }
    x
}

fn check_count(n: u64, labels: &[u64]) -> Result<(), String> {
    if labels.len() as u64 != n {
        return Err(format!(
            "{} labels for a graph of {n} vertices",
            labels.len()
        ));
    }
    Ok(())
}

fn joins(u: u32, v: u32, a: u64, b: u64) -> String {
    format!("edge ({u}, {v}) joins labels {a} and {b}: one component has two labels")
}

/// Every label the smallest vertex of its class: the number of classes.
fn check_classes(labels: &[u64]) -> Result<u64, String> {
    let mut classes = 0u64;
    for (v, &l) in labels.iter().enumerate() {
        if l > v as u64 || labels[l as usize] != l {
            return Err(format!(
                "vertex {v} has label {l}, which is not the smallest vertex of its class"
            ));
        }
        classes += u64::from(l == v as u64);
    }
    Ok(classes)
}

fn compare(classes: u64, components: u64) -> Result<u64, String> {
    if classes != components {
        return Err(format!(
            "{classes} label classes but the graph has {components} components: a class joins vertices that no path connects"
        ));
    }
    Ok(components)
}
