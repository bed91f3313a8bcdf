//! The hello: what a rank tells rank 0 about itself at bootstrap (size, threads,
//! slot size, transport, identity, arguments, the configuration ranks must share),
//! and rank 0's check of each hello against its own; a mismatch names what
//! differs.

use super::image::Identity;
use super::wire::Msg;
use super::{RankEnv, TransportKind};
use crate::config::Config;

pub(super) fn hello(env: &RankEnv, c: &Config, kind: TransportKind, data_addr: String) -> Msg {
    Msg::Hello {
        rank: env.rank as u32,
        size: env.size as u32,
        threads: c.threads as u32,
        slot_size: c.effective_slot_size(env.size) as u32,
        transport: kind.name().into(),
        identity: Identity::current(),
        data_addr,
        pid: std::process::id(),
        args: std::env::args_os()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        agreed: c.must_agree(),
    }
}

/// Says how two argument lists differ (`None` when equal).
fn args_differ(r: usize, mine: &[String], theirs: &[String]) -> Option<String> {
    if mine == theirs {
        return None;
    }
    let at = mine
        .iter()
        .zip(theirs)
        .position(|(a, b)| a != b)
        .unwrap_or(mine.len().min(theirs.len()));
    Some(format!(
        "rank {r} was started with different arguments than rank 0: rank 0: {mine:?}, rank \
         {r}: {theirs:?} (they differ from argument {} on); start every rank with the same \
         command line",
        at + 1
    ))
}

/// Says which field of the shared configuration differs (see
/// [`Config::must_agree`]).
fn config_differs(
    r: usize,
    mine: &[(String, u64)],
    theirs: &[(String, u64)],
) -> Result<(), String> {
    for ((name, a), (name2, b)) in mine.iter().zip(theirs) {
        if name != name2 || a != b {
            return Err(format!(
                "rank {r} has gossamer::Config {name2} = {b}, rank 0 has {name} = {a}: every \
                 rank must use the same value (it shapes what ranks exchange)"
            ));
        }
    }
    if mine.len() != theirs.len() {
        return Err(format!(
            "rank {r} shares {} gossamer::Config fields, rank 0 shares {}",
            theirs.len(),
            mine.len()
        ));
    }
    Ok(())
}

/// Checks a hello against rank 0's own; the message says what differs.
pub(super) fn check_hello(mine: &Msg, theirs: &Msg, joined: &[bool]) -> Result<usize, String> {
    let (
        Msg::Hello {
            size,
            threads,
            slot_size,
            transport,
            identity,
            args,
            agreed,
            ..
        },
        Msg::Hello {
            rank: r,
            size: s2,
            threads: t2,
            slot_size: ss2,
            transport: tr2,
            identity: id2,
            args: a2,
            agreed: ag2,
            ..
        },
    ) = (mine, theirs)
    else {
        return Err(format!("expected a hello, got {theirs:?}"));
    };
    let r = *r as usize;
    if r == 0 || r >= *size as usize {
        return Err(format!("a process claims rank {r}, outside 1..{size}"));
    }
    if joined[r] {
        return Err(format!("two processes claim rank {r}"));
    }
    let same = |what: &str, a: String, b: String| {
        if a == b {
            Ok(())
        } else {
            Err(format!(
                "rank {r} has {what} {b}, rank 0 has {a}: start every rank with the same arguments"
            ))
        }
    };
    same("size", size.to_string(), s2.to_string())?;
    if let Some(m) = args_differ(r, args, a2) {
        return Err(m);
    }
    same("threads", threads.to_string(), t2.to_string())?;
    same("slot size", slot_size.to_string(), ss2.to_string())?;
    same("transport", transport.clone(), tr2.clone())?;
    config_differs(r, agreed, ag2)?;
    identity.check_peer(r, id2)?;
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(rank: u32, threads: u32, transport: &str, anchor: u64) -> Msg {
        h_args(rank, threads, transport, anchor, &["x", "--scale", "12"])
    }

    fn h_args(rank: u32, threads: u32, transport: &str, anchor: u64, args: &[&str]) -> Msg {
        Msg::Hello {
            rank,
            size: 4,
            threads,
            slot_size: 1024,
            transport: transport.into(),
            identity: Identity {
                build_id: vec![1],
                exe_sha256: vec![2; 32],
                anchor,
            },
            data_addr: String::new(),
            pid: 1,
            args: args.iter().map(|a| a.to_string()).collect(),
            agreed: Config::default().must_agree(),
        }
    }

    #[test]
    fn hellos_must_agree_with_rank_0() {
        let me = h(0, 2, "shm", 100);
        let joined = [true, false, true, false];
        assert_eq!(check_hello(&me, &h(1, 2, "shm", 100), &joined), Ok(1));
        assert!(check_hello(&me, &h(2, 2, "shm", 100), &joined)
            .unwrap_err()
            .contains("two processes"));
        assert!(check_hello(&me, &h(4, 2, "shm", 100), &joined)
            .unwrap_err()
            .contains("outside"));
        assert!(check_hello(&me, &h(3, 1, "shm", 100), &joined)
            .unwrap_err()
            .contains("threads"));
        assert!(check_hello(&me, &h(3, 2, "tcp", 100), &joined)
            .unwrap_err()
            .contains("transport"));
        assert!(check_hello(&me, &h(3, 2, "shm", 104), &joined)
            .unwrap_err()
            .contains("another address"));
        let e = check_hello(
            &me,
            &h_args(3, 2, "shm", 100, &["x", "--scale", "13"]),
            &joined,
        )
        .unwrap_err();
        assert_eq!(
            e,
            "rank 3 was started with different arguments than rank 0: rank 0: [\"x\", \
             \"--scale\", \"12\"], rank 3: [\"x\", \"--scale\", \"13\"] (they differ from \
             argument 3 on); start every rank with the same command line"
        );
        let e = check_hello(&me, &h_args(3, 2, "shm", 100, &["x"]), &joined).unwrap_err();
        assert!(e.contains("from argument 2 on"), "{e}");
    }

    #[test]
    fn ranks_must_share_the_config_fields_that_shape_the_exchange() {
        let me = h(0, 2, "shm", 100);
        let joined = [true, false, false, false];
        let mut theirs = h(1, 2, "shm", 100);
        let Msg::Hello { agreed, .. } = &mut theirs else {
            unreachable!()
        };
        let c = Config {
            collective_fanout: 8,
            ..Config::default()
        };
        *agreed = c.must_agree();
        assert_eq!(
            check_hello(&me, &theirs, &joined).unwrap_err(),
            "rank 1 has gossamer::Config collective_fanout = 8, rank 0 has collective_fanout = \
             16: every rank must use the same value (it shapes what ranks exchange)"
        );
        // The slot size is compared by itself, and named.
        let Msg::Hello { slot_size, .. } = &mut theirs else {
            unreachable!()
        };
        *slot_size = 4096;
        let e = check_hello(&me, &theirs, &joined).unwrap_err();
        assert!(e.contains("slot size 4096, rank 0 has 1024"), "{e}");
    }
}
