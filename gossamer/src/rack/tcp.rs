//! The tcp transport: one connection per pair of ranks, carrying slot writes.
//!
//! A frame is a 24-byte head (`dir: u8`, 3 zero bytes, `from: u32`, `to: u32`,
//! `len: u32`, `seq: u64`, little-endian), the 56 header bytes of the slot, and the
//! `len` used bytes of the batch. The receiving rank's reader thread reads the body
//! straight into the destination slot (end-aligned), then the header, then stores
//! the ready word with release ordering and wakes the owning worker.
//!
//! No buffering beyond the socket: a client writes a slot only when its previous
//! batch on that pair was answered (a trustee answers only what it received), so
//! the slot a frame targets is always free and the reader never waits for the
//! runtime. Writers share a pair's connection under a mutex (one `write_all` per
//! frame): one connection per rank pair keeps descriptors and receiver threads at
//! `ranks - 1` per rank. One connection per (thread, remote rank) would remove the
//! mutex; it was not measured against this on a host with enough cores to matter.

use super::slots::{marks_at, ready, Layout};
use super::wire::{self, Msg};
use super::Alarm;
use crate::slot::{data_capacity, Header, HEADER_BYTES, HEADER_SIZE};
use crate::transport::{marks_wanted, set_mark, Body, Dir};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const HEAD: usize = 24;

struct Peer {
    s: TcpStream,
    buf: Vec<u8>,
}

/// This rank's data connections, indexed by peer rank.
pub(crate) struct Links {
    rank: usize,
    layout: Layout,
    peers: Vec<Option<Mutex<Peer>>>,
    alarm: Arc<Alarm>,
}

/// Encodes a frame head.
pub(crate) fn head(dir: Dir, from: usize, to: usize, len: usize, seq: u64) -> [u8; HEAD] {
    let mut h = [0u8; HEAD];
    h[0] = matches!(dir, Dir::Response) as u8;
    h[4..8].copy_from_slice(&(from as u32).to_le_bytes());
    h[8..12].copy_from_slice(&(to as u32).to_le_bytes());
    h[12..16].copy_from_slice(&(len as u32).to_le_bytes());
    h[16..24].copy_from_slice(&seq.to_le_bytes());
    h
}

/// A decoded, checked frame head.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Head {
    pub dir: Dir,
    pub from: usize,
    pub to: usize,
    pub len: usize,
    pub seq: u64,
}

/// Decodes a frame head sent by rank `peer` to rank `me`; rejects anything that
/// would write outside this rank's rows or claim another sender.
pub(crate) fn parse_head(
    h: &[u8; HEAD],
    l: &Layout,
    me: usize,
    peer: usize,
) -> Result<Head, String> {
    let u32_at = |o: usize| u32::from_le_bytes(h[o..o + 4].try_into().unwrap()) as usize;
    let dir = match h[0] {
        0 => Dir::Request,
        1 => Dir::Response,
        d => return Err(format!("bad direction byte {d}")),
    };
    let (from, to, len) = (u32_at(4), u32_at(8), u32_at(12));
    if from / l.t != peer || from >= l.n {
        return Err(format!(
            "frame claims sender {from}, not a worker of rank {peer}"
        ));
    }
    if to / l.t != me || to >= l.n {
        return Err(format!("frame for worker {to}, not a worker of this rank"));
    }
    if len > data_capacity(l.size) || len % 8 != 0 {
        return Err(format!(
            "frame body of {len} bytes does not fit a {} byte slot",
            l.size
        ));
    }
    Ok(Head {
        dir,
        from,
        to,
        len,
        seq: u64::from_le_bytes(h[16..24].try_into().unwrap()),
    })
}

impl Links {
    /// Sends a slot write to rank `to_rank`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn send(
        &self,
        to_rank: usize,
        dir: Dir,
        from: usize,
        to: usize,
        body: Body,
        header: &Header,
        seq: u64,
    ) {
        let Some(p) = &self.peers[to_rank] else {
            panic!("gossamer: no tcp link to rank {to_rank} (runtime bug)")
        };
        let size = body.len;
        let mut p = p.lock().unwrap_or_else(|e| e.into_inner());
        let p = &mut *p;
        p.buf.clear();
        p.buf.extend_from_slice(&head(dir, from, to, size, seq));
        let hb = header.encode(self.layout.size);
        p.buf.extend_from_slice(&hb);
        // SAFETY: `body` is valid for `len` bytes (Transport::write contract).
        p.buf
            .extend_from_slice(unsafe { std::slice::from_raw_parts(body.ptr, size) });
        if let Err(e) = p.s.write_all(&p.buf) {
            self.alarm.fail(format!(
                "gossamer: rank {to_rank} failed: the tcp data connection from rank {} broke ({e})",
                self.rank
            ));
        }
    }
}

/// Where the reader threads put incoming frames.
#[derive(Clone, Copy)]
struct Rows(*mut u8);
// SAFETY: the rows outlive the reader threads (kept alive by the transport, which the
// threads hold through `_keep`), and are written only under the slot protocol.
unsafe impl Send for Rows {}

/// Connects this rank to every other: it dials lower ranks and accepts higher ones
/// (each authenticated with the token), then starts a reader thread per link.
#[allow(clippy::too_many_arguments)]
pub(crate) fn connect(
    rank: usize,
    addrs: &[String],
    listener: TcpListener,
    token: &str,
    timeout: Duration,
    layout: Layout,
    rows: *mut u8,
    keep: Arc<dyn Send + Sync>,
    alarm: Arc<Alarm>,
) -> Result<Arc<Links>, String> {
    let size = addrs.len();
    let deadline = Instant::now() + timeout;
    let mut streams: Vec<Option<TcpStream>> = (0..size).map(|_| None).collect();
    for (j, addr) in addrs.iter().enumerate().take(rank) {
        let mut s = TcpStream::connect(addr)
            .map_err(|e| format!("could not open the tcp data link to rank {j} at {addr}: {e}"))?;
        wire::dial_auth(&mut s, token, deadline).map_err(|e| match e {
            wire::DialError::BadToken => format!(
                "authentication failed on the tcp data link to rank {j} at {addr}: the \
                 GOSSAMER_TOKEN differs"
            ),
            wire::DialError::NotGossamer => {
                format!("the peer at {addr} is not rank {j} of this job (bad protocol magic)")
            }
            e => format!("opening the tcp data link to rank {j} at {addr}: {e}"),
        })?;
        wire::send(&mut s, &Msg::DataHello { rank: rank as u32 }).map_err(|e| e.to_string())?;
        streams[j] = Some(s);
    }
    let mut acceptor = wire::Acceptor::new(&listener, token, format!("rank {rank} (tcp data)"))
        .map_err(|e| e.to_string())?;
    while streams
        .iter()
        .enumerate()
        .skip(rank + 1)
        .any(|(_, s)| s.is_none())
    {
        match acceptor.next(deadline)? {
            Some((s, _, Msg::DataHello { rank: j }))
                if (j as usize) > rank && (j as usize) < size && streams[j as usize].is_none() =>
            {
                streams[j as usize] = Some(s);
            }
            Some((_, from, other)) => {
                eprintln!(
                    "gossamer: unexpected first message on a data link from {from}: {other:?}"
                )
            }
            None => {
                return Err(format!(
                    "not every rank opened its tcp data link within {} s",
                    timeout.as_secs()
                ))
            }
        }
    }
    let mut peers = Vec::with_capacity(size);
    for (j, s) in streams.into_iter().enumerate() {
        let Some(s) = s else {
            peers.push(None);
            continue;
        };
        s.set_nodelay(true).map_err(|e| e.to_string())?;
        let r = s.try_clone().map_err(|e| e.to_string())?;
        let (alarm, keep, rows) = (alarm.clone(), keep.clone(), Rows(rows));
        std::thread::Builder::new()
            .name(format!("gossamer-tcp-rx{j}"))
            .spawn(move || receive(r, rank, j, layout, rows, keep, alarm))
            .map_err(|e| e.to_string())?;
        peers.push(Some(Mutex::new(Peer {
            s,
            buf: Vec::with_capacity(layout.size + HEAD),
        })));
    }
    Ok(Arc::new(Links {
        rank,
        layout,
        peers,
        alarm,
    }))
}

fn receive(
    mut s: TcpStream,
    me: usize,
    peer: usize,
    l: Layout,
    rows: Rows,
    _keep: Arc<dyn Send + Sync>,
    alarm: Arc<Alarm>,
) {
    let cap = data_capacity(l.size);
    let result = (|| -> Result<(), String> {
        loop {
            let mut h = [0u8; HEAD];
            s.read_exact(&mut h).map_err(|e| e.to_string())?;
            let f = parse_head(&h, &l, me, peer)?;
            let mut hb = [0u8; HEADER_BYTES];
            s.read_exact(&mut hb).map_err(|e| e.to_string())?;
            // SAFETY: the slot lies inside our rows (parse_head bounded `to` and
            // `from`); it is free under the slot protocol, so nothing reads or writes
            // these bytes while we fill them; `len <= cap`.
            unsafe {
                let slot = rows.0.add(l.offset(f.dir, f.to % l.t, f.from));
                let body = std::slice::from_raw_parts_mut(slot.add(cap - f.len), f.len);
                s.read_exact(body).map_err(|e| e.to_string())?;
                std::ptr::copy_nonoverlapping(
                    hb.as_ptr(),
                    slot.add(l.size - HEADER_SIZE),
                    HEADER_BYTES,
                );
                ready(slot, l.size).store(f.seq, Ordering::Release);
                if marks_wanted(l.n) {
                    set_mark(
                        marks_at(rows.0, l.marks_offset(f.dir, f.to % l.t), &l),
                        f.from,
                    );
                }
            }
            alarm.parking.wake(f.to);
        }
    })();
    if let Err(e) = result {
        // At a clean stop a peer may exit before this rank has read `Stop` from rank
        // 0: give the control plane a moment before calling it a failure (a crashed
        // peer is reported by rank 0 within the same time anyway).
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(3) {
            if alarm.closing.load(Ordering::SeqCst) || alarm.fate.failed() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        alarm.fail(format!(
            "gossamer: rank {peer} failed: its tcp data connection to rank {me} closed ({e})"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_heads_are_checked() {
        let l = Layout {
            t: 2,
            n: 6,
            size: 256,
        };
        // rank 1 (workers 2,3) receives from rank 2 (workers 4,5)
        let ok = head(Dir::Response, 5, 3, 64, 9);
        assert_eq!(
            parse_head(&ok, &l, 1, 2).unwrap(),
            Head {
                dir: Dir::Response,
                from: 5,
                to: 3,
                len: 64,
                seq: 9
            }
        );
        assert!(parse_head(&head(Dir::Request, 1, 3, 64, 1), &l, 1, 2)
            .unwrap_err()
            .contains("sender"));
        assert!(parse_head(&head(Dir::Request, 4, 0, 64, 1), &l, 1, 2)
            .unwrap_err()
            .contains("not a worker"));
        assert!(parse_head(&head(Dir::Request, 4, 2, 200, 1), &l, 1, 2)
            .unwrap_err()
            .contains("fit"));
        assert!(parse_head(&head(Dir::Request, 4, 2, 12, 1), &l, 1, 2).is_err());
        let mut bad = ok;
        bad[0] = 7;
        assert!(parse_head(&bad, &l, 1, 2).is_err());
    }
}
