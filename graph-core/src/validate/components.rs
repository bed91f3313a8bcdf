//! [`verify_cc`]: a check of a connected-components labelling against the
//! edge list, whoever computed it.

use super::reference;
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
    if labels.len() as u64 != n {
        return Err(format!(
            "{} labels for a graph of {n} vertices",
            labels.len()
        ));
    }
    for e in list.edges() {
        let (a, b) = (labels[e.u as usize], labels[e.v as usize]);
        if a != b {
            return Err(format!(
                "edge ({}, {}) joins labels {a} and {b}: one component has two labels",
                e.u, e.v
            ));
        }
    }
    let mut classes = 0u64;
    for (v, &l) in labels.iter().enumerate() {
        if l > v as u64 || labels[l as usize] != l {
            return Err(format!(
                "vertex {v} has label {l}, which is not the smallest vertex of its class"
            ));
        }
        classes += u64::from(l == v as u64);
    }
    let components = reference::cc(list)
        .iter()
        .enumerate()
        .filter(|&(v, &l)| l == v as u64)
        .count() as u64;
    if classes != components {
        return Err(format!(
            "{classes} label classes but the graph has {components} components: a class joins vertices that no path connects"
        ));
    }
    Ok(components)
}
