//! The tcp transport: one connection per pair of ranks, carrying slot writes.
//!
//! A frame is a 24-byte head (`dir: u8`, 3 zero bytes, `from: u32`, `to: u32`,
//! `len: u32`, `seq: u64`, little-endian), the 56 header bytes of the slot, and the
//! `len` used bytes of the batch. The receiver copies the body into the destination
//! slot (end-aligned), then the header, then stores the ready word with release
//! ordering and wakes the owning worker.
//!
//! **Who reads.** The rank's own workers: every pass of a worker's loop calls
//! [`Links::pump`], which drains whatever the sockets hold without blocking
//! (`recv` with `MSG_DONTWAIT`; `epoll` picks the readable links when there are
//! several), the way an MPI rank's progress engine polls its sockets. A frame thus
//! costs no thread switch while a worker is awake. A receiver thread per rank
//! covers the rest: it is *armed* when a local worker goes to sleep and then waits
//! in `epoll_wait`, drains, and wakes the sleeper; with every local worker awake
//! it waits on a condition variable and traffic does not wake it. (A receiver
//! thread that read every frame cost a wake-up per frame: on 2 cores the echo
//! benchmark reached 0.3-0.5 M requests/s against MPI's 1.8.)
//!
//! **Who writes.** A client writes a slot only when its previous batch on that pair
//! was answered, so the slot a frame targets is always free and a frame never waits
//! for the runtime once read. Writers share a pair's connection under a mutex. A
//! write never blocks: when the socket is full it drains this rank's sockets before
//! it tries again, so two ranks writing to each other at once cannot both wait for
//! the other to read.
//!
//! A link that closes or sends a malformed frame is reported by the receiver
//! thread (after a grace period at a clean stop, when peers exit first). Lost
//! packets, delay and short outages are TCP's to repair; a connection that is
//! reset or closed mid-run is not reopened: the run fails on every rank with a
//! message naming the peer (docs/rack.md, "Network conditions" says why).
//!
//! One concept in one file, longer than most: the whole tcp transport (frames,
//! sending, reading, the receiver thread, connecting), so that a newcomer finds
//! each transport in one place.

use super::layout::{marks_at, ready, Layout};
use super::wire::{self, Msg};
use super::Alarm;
use crate::config::Config;
use crate::slot::{data_capacity, Header, HEADER_BYTES, HEADER_SIZE};
use crate::transport::{set_mark, Body, Dir};
use std::net::{TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

const HEAD: usize = 24;

/// How long the transport's threads wait, in milliseconds (from [`Config`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Waits {
    /// How long an armed receiver thread waits in `epoll_wait` before it checks
    /// whether a local worker still sleeps ([`Config::tcp_armed_wait`]).
    armed_ms: i32,
    /// How long a writer whose socket is full waits for it to drain (or for
    /// input) between attempts ([`Config::tcp_full_wait`]).
    full_ms: i32,
}

impl Waits {
    /// The waits `c` sets (whole milliseconds, at least 1).
    pub(crate) fn of(c: &Config) -> Self {
        let ms = |d: Duration| i32::try_from(d.as_millis()).unwrap_or(i32::MAX).max(1);
        Waits {
            armed_ms: ms(c.tcp_armed_wait),
            full_ms: ms(c.tcp_full_wait),
        }
    }
}

/// How a broken link's reason starts when the peer sent bytes that are no frame.
const MALFORMED: &str = "malformed frame";

/// Bytes a frame can span at most.
fn max_frame(l: &Layout) -> usize {
    HEAD + HEADER_BYTES + data_capacity(l.size)
}

/// The sending half of a link.
struct Tx {
    buf: Vec<u8>,
}

/// The receiving half of a link: bytes read but not yet delivered.
struct Rx {
    buf: Box<[u8]>,
    /// Start of the first undelivered byte.
    start: usize,
    /// End of the bytes read.
    end: usize,
}

struct Link {
    s: TcpStream,
    tx: Mutex<Tx>,
    rx: Mutex<Rx>,
}

/// Where incoming frames go: this rank's rows.
#[derive(Clone, Copy)]
struct Rows(*mut u8);

/// This rank's data connections, indexed by peer rank.
pub(crate) struct Links {
    rank: usize,
    layout: Layout,
    peers: Vec<Option<Link>>,
    /// The peer of the only link, when there is one (no `epoll` needed).
    single: Option<usize>,
    epoll: OwnedFd,
    rows: Rows,
    alarm: Arc<Alarm>,
    waits: Waits,
    /// Whether the receiver thread should read (a local worker sleeps).
    armed: AtomicBool,
    /// The first link failure seen, for the receiver thread to report.
    broken: Mutex<Option<(usize, String)>>,
    wait: Condvar,
    _keep: Arc<dyn Send + Sync>,
}

// SAFETY: `rows` points at this rank's rows, kept alive by `_keep` as long as the
// links; bytes there are written only under the slot protocol (a frame targets a
// free slot) while holding the link's `rx` lock, and published by a release store.
unsafe impl Send for Links {}
// SAFETY: as above.
unsafe impl Sync for Links {}

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

/// What one attempt to read a link gave.
enum Drained {
    /// This many frames delivered; the socket has nothing more right now.
    Frames(usize),
    /// The link closed or carried a malformed frame.
    Broken(String),
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
        let Some(link) = &self.peers[to_rank] else {
            panic!("gossamer: no tcp link to rank {to_rank} (runtime bug)")
        };
        let size = body.len;
        let mut tx = link.tx.lock().unwrap_or_else(|e| e.into_inner());
        let buf = &mut tx.buf;
        buf.clear();
        buf.extend_from_slice(&head(dir, from, to, size, seq));
        buf.extend_from_slice(&header.encode(self.layout.size));
        // SAFETY: `body` is valid for `len` bytes (Transport::write contract).
        buf.extend_from_slice(unsafe { std::slice::from_raw_parts(body.ptr, size) });
        let mut off = 0;
        while off < buf.len() {
            // SAFETY: the range lies inside `buf`; `fd` is the link's open socket.
            let n = unsafe {
                libc::send(
                    link.s.as_raw_fd(),
                    buf[off..].as_ptr().cast(),
                    buf.len() - off,
                    libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
                )
            };
            if n > 0 {
                off += n as usize;
                continue;
            }
            let e = std::io::Error::last_os_error();
            match e.kind() {
                std::io::ErrorKind::Interrupted => {}
                std::io::ErrorKind::WouldBlock => {
                    // The peer's socket is full: keep reading ours, so that a peer
                    // writing to us at the same time can go on and read its socket.
                    if !self.pump() {
                        wait_fd(
                            link.s.as_raw_fd(),
                            libc::POLLOUT | libc::POLLIN,
                            self.waits.full_ms,
                        );
                    }
                }
                _ => {
                    self.alarm.fail(format!(
                        "gossamer: rank {to_rank} failed: lost it: the tcp data connection from \
                         rank {} broke: {e} (the process was killed, or the network reset the \
                         connection)",
                        self.rank
                    ));
                    return;
                }
            }
            if self.alarm.fate.failed() {
                return;
            }
        }
    }

    /// Delivers what this rank's sockets hold, without blocking; true when a frame
    /// arrived. Links another thread is reading are skipped.
    pub(crate) fn pump(&self) -> bool {
        if let Some(p) = self.single {
            return self.drain_link(p, false);
        }
        let mut evs = [libc::epoll_event { events: 0, u64: 0 }; 16];
        // SAFETY: `epoll` is an open epoll descriptor; `evs` has room for 16 events.
        let k = unsafe { libc::epoll_wait(self.epoll.as_raw_fd(), evs.as_mut_ptr(), 16, 0) };
        let mut got = false;
        for ev in evs.iter().take(k.max(0) as usize) {
            got |= self.drain_link(ev.u64 as usize, false);
        }
        got
    }

    /// Called by a worker about to sleep (its sleeping word is set): the receiver
    /// thread reads until no local worker sleeps.
    pub(crate) fn arm(&self) {
        if !self.armed.swap(true, Ordering::SeqCst) {
            let _g = self.broken.lock().unwrap_or_else(|e| e.into_inner());
            self.wait.notify_one();
        }
    }

    /// Reads link `peer` (waiting for its lock when `wait`), reporting a failure.
    fn drain_link(&self, peer: usize, wait: bool) -> bool {
        let Some(link) = &self.peers[peer] else {
            return false;
        };
        let mut rx = match link.rx.try_lock() {
            Ok(g) => g,
            Err(std::sync::TryLockError::WouldBlock) if !wait => return false,
            Err(_) => link.rx.lock().unwrap_or_else(|e| e.into_inner()),
        };
        match self.drain(peer, link.s.as_raw_fd(), &mut rx) {
            Drained::Frames(n) => n > 0,
            Drained::Broken(why) => {
                let mut b = self.broken.lock().unwrap_or_else(|e| e.into_inner());
                if b.is_none() {
                    *b = Some((peer, why));
                    self.wait.notify_one();
                }
                false
            }
        }
    }

    /// Reads what socket `fd` (from rank `peer`) holds and delivers complete frames.
    fn drain(&self, peer: usize, fd: RawFd, rx: &mut Rx) -> Drained {
        let l = self.layout;
        let mut frames = 0;
        loop {
            // Deliver every complete frame in the buffer.
            while rx.end - rx.start >= HEAD + HEADER_BYTES {
                let h: &[u8; HEAD] = rx.buf[rx.start..rx.start + HEAD].try_into().unwrap();
                let f = match parse_head(h, &l, self.rank, peer) {
                    Ok(f) => f,
                    Err(e) => return Drained::Broken(format!("{MALFORMED}: {e}")),
                };
                let whole = HEAD + HEADER_BYTES + f.len;
                if rx.end - rx.start < whole {
                    break;
                }
                let hb = &rx.buf[rx.start + HEAD..rx.start + HEAD + HEADER_BYTES];
                let body = &rx.buf[rx.start + HEAD + HEADER_BYTES..rx.start + whole];
                self.deliver(&f, hb, body);
                rx.start += whole;
                frames += 1;
            }
            if rx.start == rx.end {
                (rx.start, rx.end) = (0, 0);
            } else if rx.buf.len() - rx.end < max_frame(&l) {
                // Room for a whole frame after the partial one.
                rx.buf.copy_within(rx.start..rx.end, 0);
                (rx.start, rx.end) = (0, rx.end - rx.start);
            }
            let room = &mut rx.buf[rx.end..];
            // SAFETY: `room` is writable for its length; `fd` is the link's socket.
            let n =
                unsafe { libc::recv(fd, room.as_mut_ptr().cast(), room.len(), libc::MSG_DONTWAIT) };
            if n > 0 {
                rx.end += n as usize;
                continue;
            }
            if n == 0 {
                return Drained::Broken("was closed".into());
            }
            let e = std::io::Error::last_os_error();
            match e.kind() {
                std::io::ErrorKind::Interrupted => {}
                std::io::ErrorKind::WouldBlock => return Drained::Frames(frames),
                _ => return Drained::Broken(format!("broke: {e}")),
            }
        }
    }

    /// Places a frame's batch into its slot and wakes its owner.
    fn deliver(&self, f: &Head, hb: &[u8], body: &[u8]) {
        let l = self.layout;
        let cap = data_capacity(l.size);
        // SAFETY: the slot lies inside our rows (parse_head bounded `to` and `from`);
        // it is free under the slot protocol, so nothing reads or writes these bytes
        // while we fill them; `len <= cap`, and the sources are our own buffer.
        unsafe {
            let slot = self.rows.0.add(l.offset(f.dir, f.to % l.t, f.from));
            std::ptr::copy_nonoverlapping(body.as_ptr(), slot.add(cap - f.len), f.len);
            std::ptr::copy_nonoverlapping(
                hb.as_ptr(),
                slot.add(l.size - HEADER_SIZE),
                HEADER_BYTES,
            );
            ready(slot, l.size).store(f.seq, Ordering::Release);
            if l.marks {
                set_mark(
                    marks_at(self.rows.0, l.marks_offset(f.dir, f.to % l.t), &l),
                    f.from,
                );
            }
        }
        self.alarm.parking.wake(f.to);
    }

    /// True while one of this rank's workers sleeps.
    fn local_sleeper(&self) -> bool {
        let t = self.layout.t;
        (self.rank * t..(self.rank + 1) * t).any(|w| self.alarm.parking.is_asleep(w))
    }

    /// The receiver thread: reads while a local worker sleeps, and reports a broken
    /// link.
    fn receive(&self) {
        let mut evs = [libc::epoll_event { events: 0, u64: 0 }; 16];
        loop {
            {
                let mut b = self.broken.lock().unwrap_or_else(|e| e.into_inner());
                while b.is_none() && !self.armed.load(Ordering::SeqCst) {
                    if self.alarm.closing.load(Ordering::SeqCst) || self.alarm.fate.failed() {
                        return;
                    }
                    b = self
                        .wait
                        .wait_timeout(b, Duration::from_millis(100))
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
                if let Some((peer, why)) = b.take() {
                    drop(b);
                    return self.report(peer, why);
                }
            }
            // SAFETY: `epoll` is an open epoll descriptor; `evs` has room for 16.
            let k = unsafe {
                libc::epoll_wait(
                    self.epoll.as_raw_fd(),
                    evs.as_mut_ptr(),
                    16,
                    self.waits.armed_ms,
                )
            };
            for ev in evs.iter().take(k.max(0) as usize) {
                self.drain_link(ev.u64 as usize, true);
            }
            // Disarm, then look again, so that a worker falling asleep meanwhile
            // either sees `armed` false (and arms) or is seen here.
            self.armed.store(false, Ordering::SeqCst);
            if self.local_sleeper() {
                self.armed.store(true, Ordering::SeqCst);
            }
        }
    }

    /// Reports that the link to `peer` broke, unless the run is stopping cleanly.
    fn report(&self, peer: usize, why: String) {
        if why.starts_with(MALFORMED) {
            // Never part of a clean stop.
            return self.alarm.fail(format!(
                "gossamer: rank {peer} sent rank {} a {why} on their tcp data connection",
                self.rank
            ));
        }
        // At a clean stop a peer may exit before this rank has read `Stop` from rank
        // 0: give the control plane a moment before calling it a failure (a crashed
        // peer is reported by rank 0 within the same time anyway).
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(3) {
            if self.alarm.closing.load(Ordering::SeqCst) || self.alarm.fate.failed() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.alarm.fail(format!(
            "gossamer: rank {peer} failed: lost it: its tcp data connection to rank {} {why} \
             (the process exited or was killed, or the network or a proxy reset the connection)",
            self.rank
        ));
    }
}

/// Waits up to `ms` for `events` on `fd`.
fn wait_fd(fd: RawFd, events: libc::c_short, ms: i32) {
    let mut p = libc::pollfd {
        fd,
        events,
        revents: 0,
    };
    // SAFETY: one valid pollfd; poll only writes its `revents`.
    unsafe { libc::poll(&mut p, 1, ms) };
}

/// Connects this rank to every other: it dials lower ranks and accepts higher ones
/// (each authenticated with the token), then starts the receiver thread.
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
    waits: Waits,
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
    link_up(rank, layout, streams, rows, keep, alarm, waits, true)
}

/// Builds the links over connected `streams` (indexed by peer rank) and, when
/// `receiver`, starts the receiver thread.
#[allow(clippy::too_many_arguments)]
fn link_up(
    rank: usize,
    layout: Layout,
    streams: Vec<Option<TcpStream>>,
    rows: *mut u8,
    keep: Arc<dyn Send + Sync>,
    alarm: Arc<Alarm>,
    waits: Waits,
    receiver: bool,
) -> Result<Arc<Links>, String> {
    let size = streams.len();
    // SAFETY: epoll_create1 takes no pointers; a non-negative result is a new
    // descriptor that we own from here on.
    let ep = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    if ep < 0 {
        return Err(format!(
            "epoll_create1: {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: `ep` is a fresh descriptor owned by nobody else.
    let epoll = unsafe { OwnedFd::from_raw_fd(ep) };
    let mut peers = Vec::with_capacity(size);
    for (j, s) in streams.into_iter().enumerate() {
        let Some(s) = s else {
            peers.push(None);
            continue;
        };
        // Blocking sockets: `send` and `recv` pass MSG_DONTWAIT instead, so the
        // handshake code above and these calls need no mode switch.
        s.set_nonblocking(false).map_err(|e| e.to_string())?;
        s.set_read_timeout(None).map_err(|e| e.to_string())?;
        s.set_write_timeout(None).map_err(|e| e.to_string())?;
        s.set_nodelay(true).map_err(|e| e.to_string())?;
        let mut ev = libc::epoll_event {
            events: (libc::EPOLLIN | libc::EPOLLRDHUP) as u32,
            u64: j as u64,
        };
        // SAFETY: valid epoll and socket descriptors; `ev` is read only.
        if unsafe { libc::epoll_ctl(ep, libc::EPOLL_CTL_ADD, s.as_raw_fd(), &mut ev) } < 0 {
            return Err(format!("epoll_ctl: {}", std::io::Error::last_os_error()));
        }
        peers.push(Some(Link {
            s,
            tx: Mutex::new(Tx {
                buf: Vec::with_capacity(max_frame(&layout)),
            }),
            rx: Mutex::new(Rx {
                buf: vec![0u8; 2 * max_frame(&layout)].into_boxed_slice(),
                start: 0,
                end: 0,
            }),
        }));
    }
    let mut linked = peers.iter().enumerate().filter(|(_, p)| p.is_some());
    let single = match (linked.next(), linked.next()) {
        (Some((j, _)), None) => Some(j),
        _ => None,
    };
    let links = Arc::new(Links {
        rank,
        layout,
        peers,
        single,
        epoll,
        rows: Rows(rows),
        alarm,
        waits,
        armed: AtomicBool::new(false),
        broken: Mutex::new(None),
        wait: Condvar::new(),
        _keep: keep,
    });
    if receiver && size > 1 {
        let l = links.clone();
        std::thread::Builder::new()
            .name("gossamer-tcp-rx".into())
            .spawn(move || l.receive())
            .map_err(|e| e.to_string())?;
    }
    Ok(links)
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::park::Parking;
    use crate::rack::slots::LocalRows;
    use crate::worker::Fate;
    use std::io::Write;

    fn pair() -> (TcpStream, TcpStream) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let a = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (b, _) = l.accept().unwrap();
        (a, b)
    }

    /// Rank `rank` of two (one worker each, slots of `size` bytes) linked to the
    /// other rank over `s`.
    fn rank_of_two(
        rank: usize,
        size: usize,
        s: TcpStream,
        receiver: bool,
    ) -> (Arc<Links>, Arc<LocalRows>, Arc<Alarm>) {
        let layout = Layout {
            t: 1,
            n: 2,
            size,
            marks: false,
        };
        let c = Config::default();
        let parking = Arc::new(Parking::local(2, c.nap, c.crowded_nap));
        let alarm = Arc::new(Alarm::new(Arc::new(Fate::default()), parking, c.watchdog));
        let rows = Arc::new(LocalRows::new(layout.region_bytes()));
        let mut streams = vec![None, None];
        streams[1 - rank] = Some(s);
        let links = link_up(
            rank,
            layout,
            streams,
            rows.base(),
            rows.clone(),
            alarm.clone(),
            Waits::of(&Config::default()),
            receiver,
        )
        .unwrap();
        (links, rows, alarm)
    }

    /// A frame as rank 0's worker 0 sends it to worker 1: head, header bytes, body.
    fn frame(dir: Dir, seq: u64, body: &[u8]) -> Vec<u8> {
        let mut f = head(dir, 0, 1, body.len(), seq).to_vec();
        f.extend_from_slice(&[seq as u8; HEADER_BYTES]);
        f.extend_from_slice(body);
        f
    }

    /// The slot `dir` of worker 1 written by worker 0 at rank 1: (ready word,
    /// the last `len` body bytes, the header bytes).
    fn slot(rows: &LocalRows, size: usize, dir: Dir, len: usize) -> (u64, Vec<u8>, Vec<u8>) {
        let l = Layout {
            t: 1,
            n: 2,
            size,
            marks: false,
        };
        let cap = data_capacity(size);
        // SAFETY: the slot lies inside the rows, which `rows` keeps alive; the test
        // reads it while nothing writes.
        unsafe {
            let p = rows.base().add(l.offset(dir, 0, 0));
            let seq = ready(p, size).load(Ordering::Acquire);
            let body = std::slice::from_raw_parts(p.add(cap - len), len).to_vec();
            let hb = std::slice::from_raw_parts(p.add(size - HEADER_SIZE), HEADER_BYTES).to_vec();
            (seq, body, hb)
        }
    }

    #[test]
    fn frames_cut_anywhere_by_the_network_are_delivered_whole() {
        let (mut peer, s) = pair();
        let (links, rows, alarm) = rank_of_two(1, 256, s, false);
        let body: Vec<u8> = (0..64u8).collect();
        let f = frame(Dir::Request, 1, &body);
        for chunk in f.chunks(5) {
            assert_eq!(slot(&rows, 256, Dir::Request, 64).0, 0, "delivered early");
            peer.write_all(chunk).unwrap();
            std::thread::sleep(Duration::from_millis(2));
            links.pump();
        }
        assert_eq!(
            slot(&rows, 256, Dir::Request, 64),
            (1, body.clone(), vec![1; HEADER_BYTES])
        );
        // Two frames in one write (a request and a response) arrive in one pump.
        let mut two = frame(Dir::Request, 2, &body[..8]);
        two.extend(frame(Dir::Response, 7, &body[8..32]));
        peer.write_all(&two).unwrap();
        let t0 = Instant::now();
        while slot(&rows, 256, Dir::Response, 24).0 != 7 {
            links.pump();
            assert!(t0.elapsed() < Duration::from_secs(10), "never delivered");
        }
        assert_eq!(
            slot(&rows, 256, Dir::Request, 8),
            (2, body[..8].to_vec(), vec![2; HEADER_BYTES])
        );
        assert_eq!(slot(&rows, 256, Dir::Response, 24).1, body[8..32].to_vec());
        alarm.closing.store(true, Ordering::SeqCst);
    }

    #[test]
    fn a_malformed_frame_breaks_the_link() {
        let (mut peer, s) = pair();
        let (links, rows, alarm) = rank_of_two(1, 256, s, false);
        let mut f = frame(Dir::Request, 1, &[0; 8]);
        f[12] = 200; // a body longer than the slot
        peer.write_all(&f).unwrap();
        // Pump until the frame has been read (the bytes may arrive in pieces).
        let t0 = Instant::now();
        while links.broken.lock().unwrap().is_none() {
            assert!(!links.pump(), "a malformed frame was delivered");
            assert!(t0.elapsed() < Duration::from_secs(10), "hang guard");
        }
        let b = links.broken.lock().unwrap().clone();
        let (from, why) = b.expect("the link is not marked broken");
        assert_eq!(from, 0);
        assert!(
            why.starts_with(MALFORMED) && why.contains("does not fit"),
            "{why}"
        );
        assert_eq!(slot(&rows, 256, Dir::Request, 8).0, 0);
        alarm.closing.store(true, Ordering::SeqCst);
    }

    #[test]
    fn a_sleeping_rank_is_served_by_its_receiver_thread() {
        let (mut peer, s) = pair();
        let (links, rows, alarm) = rank_of_two(1, 256, s, true);
        let (l2, r2, a2) = (links.clone(), rows.clone(), alarm.clone());
        // Says when worker 1 has set its sleeping word and armed the receiver.
        let (armed_tx, armed_rx) = std::sync::mpsc::channel();
        // Worker 1 only sleeps (it never pumps): only the receiver thread reads.
        let sleeper = std::thread::spawn(move || {
            a2.parking.register(1);
            let t0 = Instant::now();
            while t0.elapsed() < Duration::from_secs(10) {
                let mut arrived = false;
                a2.parking.sleep(1, false, || {
                    l2.arm();
                    let _ = armed_tx.send(());
                    arrived = slot(&r2, 256, Dir::Request, 8).0 == 5;
                    arrived
                });
                if arrived || slot(&r2, 256, Dir::Request, 8).0 == 5 {
                    return true;
                }
            }
            false
        });
        // The frame goes out only once the worker sleeps with the receiver armed.
        armed_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("worker 1 went to sleep");
        peer.write_all(&frame(Dir::Request, 5, &[9; 8])).unwrap();
        assert!(
            sleeper.join().unwrap(),
            "the frame was not delivered to a sleeping rank"
        );
        alarm.closing.store(true, Ordering::SeqCst);
    }

    #[test]
    fn two_ranks_writing_to_each_other_at_once_do_not_wait_for_each_other() {
        // Neither rank pumps nor has a receiver thread: only the writers read,
        // while their own socket is full. Far more bytes than the sockets hold.
        const SIZE: usize = 1 << 16;
        const FRAMES: u64 = 300;
        let (a, b) = pair();
        let (ra, rows_a, alarm_a) = rank_of_two(0, SIZE, a, false);
        let (rb, rows_b, alarm_b) = rank_of_two(1, SIZE, b, false);
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        for (links, me) in [(ra, 0usize), (rb, 1usize)] {
            let done = done_tx.clone();
            std::thread::spawn(move || {
                let words = vec![me as u64 + 1; data_capacity(SIZE) / 8];
                let header = Header::default();
                for seq in 1..=FRAMES {
                    let body = Body {
                        ptr: words.as_ptr().cast(),
                        len: words.len() * 8,
                    };
                    links.send(1 - me, Dir::Request, me, 1 - me, body, &header, seq);
                }
                // Take in what is left for us.
                let t0 = Instant::now();
                let l = links.layout;
                let s = l.offset(Dir::Request, 0, 1 - me);
                // SAFETY: the slot lies in this rank's rows, alive while `links` is.
                let seen = || unsafe { ready(links.rows.0.add(s), SIZE).load(Ordering::Acquire) };
                while seen() != FRAMES && t0.elapsed() < Duration::from_secs(30) {
                    links.pump();
                }
                done.send((me, seen())).unwrap();
            });
        }
        for _ in 0..2 {
            let (me, seen) = done_rx
                .recv_timeout(Duration::from_secs(60))
                .expect("the two ranks wait for each other: deadlock");
            assert_eq!(seen, FRAMES, "rank {me} did not receive every frame");
        }
        let _ = (rows_a, rows_b);
        alarm_a.closing.store(true, Ordering::SeqCst);
        alarm_b.closing.store(true, Ordering::SeqCst);
    }

    #[test]
    fn frame_heads_are_checked() {
        let l = Layout {
            t: 2,
            n: 6,
            size: 256,
            marks: false,
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
