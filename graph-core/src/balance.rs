//! Which blocks of a [`PartitionKind::Blocks`](crate::PartitionKind::Blocks)
//! partition to move between searches, from the trustees' measured busy
//! time (issue 29, docs/balance.md).
//!
//! The model: trustee `t` was busy `busy[t]` seconds in the last search
//! and owns blocks whose estimated work is `cost[b]` (e.g. the block's
//! edge count). Its seconds per unit of cost are `busy[t] / sum(cost of its
//! blocks)`, so a slow core (a straggler) shows up as a high rate, and
//! block `b` on trustee `u` is predicted to take `cost[b] * rate[u]`
//! seconds. A search takes as long as its busiest trustee. [`plan`] moves,
//! one block at a time, the block of the busiest trustee that lowers the
//! predicted maximum most to the least busy trustee, and stops when the
//! best move gains less than `min_gain` of the current maximum, or when the
//! gain over the searches still to come does not pay for copying the
//! block's bytes at `copy_bytes_per_s`.
//!
//! ```
//! use graph_core::balance::{plan, BalanceConfig};
//! use graph_core::{Partition, PartitionKind};
//! // 2 trustees, 8 blocks each of equal cost; trustee 0 was 3x as busy
//! // (its core is shared): moving 4 of its blocks evens the load.
//! let p = Partition::new(PartitionKind::Blocks, 1 << 20, 1, 2).unwrap();
//! let cost = vec![1.0; 16];
//! let bytes = vec![1 << 20; 16];
//! let cfg = BalanceConfig::default();
//! let moves = plan(&p, &[3.0, 1.0], &cost, &bytes, &cfg);
//! assert!(moves.moves.iter().all(|m| m.from == 0 && m.to == 1));
//! assert!(moves.predicted_after < moves.predicted_before);
//! ```

use crate::partition::Partition;

/// The balancer's thresholds and cost model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BalanceConfig {
    /// A move must lower the predicted busiest time by at least this
    /// fraction of it (0.02: 2%).
    pub min_gain: f64,
    /// Bytes per second a block's rows and state are copied at (measured:
    /// docs/balance.md).
    pub copy_bytes_per_s: f64,
    /// Searches the gain of a move is counted over (the move must pay for
    /// itself within them).
    pub searches_ahead: f64,
    /// At most this many moves per call.
    pub max_moves: usize,
}

impl Default for BalanceConfig {
    fn default() -> Self {
        BalanceConfig {
            min_gain: 0.02,
            copy_bytes_per_s: 1e9,
            searches_ahead: 8.0,
            max_moves: 64,
        }
    }
}

/// One block moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    /// The block.
    pub block: u32,
    /// Its trustee before.
    pub from: u32,
    /// Its trustee after.
    pub to: u32,
}

/// What [`plan`] decided and predicted.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The moves, in order.
    pub moves: Vec<Move>,
    /// Bytes the moves copy.
    pub bytes: u64,
    /// Predicted seconds of copying them.
    pub copy_s: f64,
    /// Imbalance (max / mean busy) measured before.
    pub predicted_before: f64,
    /// Imbalance predicted after the moves.
    pub predicted_after: f64,
}

fn imbalance(load: &[f64]) -> f64 {
    let mean = load.iter().sum::<f64>() / load.len().max(1) as f64;
    let max = load.iter().copied().fold(0.0, f64::max);
    if mean > 0.0 {
        max / mean
    } else {
        1.0
    }
}

/// The moves for partition `p` given each trustee's busy seconds `busy`
/// (one per trustee), each block's estimated work `cost` and its bytes
/// `bytes` (one per block). No moves for a partition without blocks, a
/// length mismatch, or nothing measured.
pub fn plan(p: &Partition, busy: &[f64], cost: &[f64], bytes: &[u64], cfg: &BalanceConfig) -> Plan {
    let t = p.num_trustees() as usize;
    let nb = p.num_blocks() as usize;
    let before = imbalance(busy);
    let mut out = Plan {
        moves: Vec::new(),
        bytes: 0,
        copy_s: 0.0,
        predicted_before: before,
        predicted_after: before,
    };
    if nb == 0 || busy.len() != t || cost.len() != nb || bytes.len() != nb || t < 2 {
        return out;
    }
    let mut owner = p.block_table();
    let mut owned = vec![0.0f64; t];
    for (b, &o) in owner.iter().enumerate() {
        owned[o as usize] += cost[b];
    }
    // Seconds per unit of cost; trustees with no work get the mean rate.
    let (sb, sc): (f64, f64) = (busy.iter().sum(), owned.iter().sum());
    let mean_rate = if sc > 0.0 { sb / sc } else { 0.0 };
    let rate: Vec<f64> = (0..t)
        .map(|i| {
            if owned[i] > 0.0 {
                busy[i] / owned[i]
            } else {
                mean_rate
            }
        })
        .collect();
    let mut load = busy.to_vec();
    while out.moves.len() < cfg.max_moves {
        let (hi, &max) = load
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .expect("t >= 2");
        let lo = (0..t)
            .min_by(|&a, &b| load[a].total_cmp(&load[b]))
            .expect("t >= 2");
        let others = (0..t)
            .filter(|&i| i != hi && i != lo)
            .map(|i| load[i])
            .fold(0.0, f64::max);
        let best = (0..nb)
            .filter(|&b| owner[b] as usize == hi)
            .map(|b| {
                let after = (load[hi] - cost[b] * rate[hi])
                    .max(load[lo] + cost[b] * rate[lo])
                    .max(others);
                (b, max - after)
            })
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let Some((b, gain)) = best else { break };
        let copy_s = bytes[b] as f64 / cfg.copy_bytes_per_s;
        if gain <= cfg.min_gain * max || gain * cfg.searches_ahead <= copy_s {
            break;
        }
        load[hi] -= cost[b] * rate[hi];
        load[lo] += cost[b] * rate[lo];
        owner[b] = lo as u32;
        out.moves.push(Move {
            block: b as u32,
            from: hi as u32,
            to: lo as u32,
        });
        out.bytes += bytes[b];
        out.copy_s += copy_s;
    }
    out.predicted_after = imbalance(&load);
    out
}

/// Applies `plan`'s moves to `p`.
pub fn apply(p: &mut Partition, plan: &Plan) -> Result<(), crate::PartitionError> {
    plan.moves
        .iter()
        .try_for_each(|m| p.move_block(m.block, m.to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PartitionKind;

    fn blocks(t: u32) -> Partition {
        Partition::new(PartitionKind::Blocks, 1 << 16, 1, t).unwrap()
    }

    #[test]
    fn moves_from_the_busiest_to_the_least_busy_until_even() {
        let mut p = blocks(4);
        let nb = p.num_blocks() as usize;
        assert_eq!(nb, 32);
        // Trustee 2 was twice as busy as the others on equal blocks (a
        // straggler): its blocks go to the others, never the other way.
        let busy = [1.0, 1.0, 2.0, 1.0];
        let plan = plan(
            &p,
            &busy,
            &vec![1.0; nb],
            &vec![4096; nb],
            &BalanceConfig::default(),
        );
        assert!(!plan.moves.is_empty());
        assert!(plan.moves.iter().all(|m| m.from == 2 && m.to != 2));
        assert!(plan.predicted_after < plan.predicted_before);
        assert!((plan.predicted_before - 2.0 / 1.25).abs() < 1e-9);
        assert_eq!(plan.bytes, 4096 * plan.moves.len() as u64);
        apply(&mut p, &plan).unwrap();
        let table = p.block_table();
        for m in &plan.moves {
            assert_eq!(table[m.block as usize], m.to);
        }
        let left = table.iter().filter(|&&o| o == 2).count();
        assert_eq!(left, 8 - plan.moves.len());
    }

    #[test]
    fn skewed_costs_move_the_heavy_blocks_first() {
        // Trustee 0 holds the hubs: its first block costs 10, all else 1.
        let p = blocks(2);
        let nb = p.num_blocks() as usize;
        let mut cost = vec![1.0; nb];
        cost[0] = 10.0;
        let busy = [17.0, 8.0];
        let plan = plan(&p, &busy, &cost, &vec![1; nb], &BalanceConfig::default());
        // Block 0 alone would overshoot (7 vs 18): lighter blocks go.
        assert!(plan.moves.iter().all(|m| m.from == 0 && m.block != 0));
        assert!(plan.predicted_after < 1.1, "{plan:?}");
    }

    #[test]
    fn never_moves_below_the_threshold_or_when_copying_costs_more() {
        let p = blocks(2);
        let nb = p.num_blocks() as usize;
        let cfg = BalanceConfig::default();
        // Even load: 1% apart, below the 2% threshold.
        let plan0 = plan(&p, &[1.01, 1.0], &vec![1.0; nb], &vec![1; nb], &cfg);
        assert!(plan0.moves.is_empty());
        assert_eq!(plan0.predicted_after, plan0.predicted_before);
        // Uneven, but each block's copy takes longer than what it saves
        // over the searches ahead.
        let slow = BalanceConfig {
            copy_bytes_per_s: 1.0,
            ..cfg
        };
        assert!(
            plan(&p, &[3.0, 1.0], &vec![1.0; nb], &vec![1 << 20; nb], &slow)
                .moves
                .is_empty()
        );
        // The same with a fast copy moves.
        assert!(
            !plan(&p, &[3.0, 1.0], &vec![1.0; nb], &vec![1 << 20; nb], &cfg)
                .moves
                .is_empty()
        );
        // Other kinds, wrong lengths, one trustee: nothing.
        let block = Partition::new(PartitionKind::Block, 1 << 16, 1, 2).unwrap();
        assert!(plan(&block, &[3.0, 1.0], &[], &[], &cfg).moves.is_empty());
        assert!(plan(&p, &[3.0], &vec![1.0; nb], &vec![1; nb], &cfg)
            .moves
            .is_empty());
        let one = blocks(1);
        let n1 = one.num_blocks() as usize;
        assert!(plan(&one, &[3.0], &vec![1.0; n1], &vec![1; n1], &cfg)
            .moves
            .is_empty());
    }

    #[test]
    fn max_moves_bounds_a_call() {
        let p = blocks(2);
        let nb = p.num_blocks() as usize;
        let cfg = BalanceConfig {
            max_moves: 1,
            ..BalanceConfig::default()
        };
        assert_eq!(
            plan(&p, &[5.0, 1.0], &vec![1.0; nb], &vec![1; nb], &cfg)
                .moves
                .len(),
            1
        );
    }
}
