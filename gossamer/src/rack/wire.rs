//! Bytes on rack connections: the mutual authentication handshake and framed
//! control messages.
//!
//! Every connection (control to rank 0, tcp data between ranks) starts with a
//! challenge/response handshake keyed by the job token, in which the token itself
//! never crosses the wire:
//!
//! 1. opener -> acceptor: `MAGIC`, a 32-byte random nonce `c`;
//! 2. acceptor -> opener: `MAGIC`, a 32-byte random nonce `s`,
//!    `HMAC-SHA256(token, "acceptor" || c || s)`;
//! 3. the opener checks that tag (constant time) and only then answers
//!    `HMAC-SHA256(token, "opener" || c || s)`, which the acceptor checks.
//!
//! So an opener learns nothing useful from a listener that is not the job's
//! (a squatter on the port sees a random nonce), and an acceptor parses nothing from
//! a peer before it proved the token: [`Acceptor`] reads exactly the handshake
//! bytes, then one framed message. It handles every pending connection at once on
//! non-blocking sockets (one deadline each, at most [`MAX_PENDING`], dropping the
//! oldest unauthenticated one beyond that), so idle connections cannot hold up the
//! real ranks.
//!
//! Control messages are `u32` little-endian length + postcard-encoded [`Msg`]
//! (at most [`MAX_FRAME`] bytes).

use super::image::Identity;
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use std::collections::VecDeque;
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// First bytes of every rack connection, both ways (name and protocol version).
pub(crate) const MAGIC: &[u8; 8] = b"GSMRACK2";
/// Largest control frame.
pub(crate) const MAX_FRAME: usize = 1 << 20;
/// How long an acceptor waits for a connection's handshake and first message.
pub(crate) const AUTH_TIMEOUT: Duration = Duration::from_secs(5);
/// Most connections an acceptor keeps in the handshake at once.
pub(crate) const MAX_PENDING: usize = 64;
const NONCE: usize = 32;
const TAG: usize = 32;
const ACCEPTOR: &[u8] = b"gossamer-rack acceptor";
const OPENER: &[u8] = b"gossamer-rack opener";

/// Control messages between rank 0 and the other ranks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Msg {
    /// A rank introduces itself to rank 0.
    Hello {
        rank: u32,
        size: u32,
        threads: u32,
        slot_size: u32,
        transport: String,
        identity: Identity,
        /// Where this rank accepts tcp data connections (empty when not tcp).
        data_addr: String,
        pid: u32,
        /// The program's arguments (without `argv[0]`): every rank must be started
        /// with the same.
        args: Vec<String>,
        /// The configuration every rank must share ([`Config::must_agree`](crate::Config::must_agree)).
        agreed: Vec<(String, u64)>,
    },
    /// Rank 0 refuses to start the job.
    Refused(String),
    /// Rank 0's answer once every rank said hello.
    Table {
        shm_path: Option<String>,
        data_addrs: Vec<String>,
    },
    /// A rank mapped the shared region / connected its data links.
    Mapped,
    /// Every rank is ready: start.
    Go,
    /// Liveness (both directions).
    Heartbeat,
    /// Rank 0 asks for a quiescence snapshot.
    Query(u64),
    /// Activity sum of a rank whose workers are all idle, or `None`.
    Quiescent(u64, Option<u64>),
    /// Rank 0's main function returned and nothing is left to do: stop.
    Stop,
    /// A rank stopped cleanly after `Stop`.
    Done,
    /// A rank failed by itself (e.g. a delegated panic).
    Failed(String),
    /// Rank 0 tells everyone that `rank` failed.
    Abort { rank: u32, cause: String },
    /// A data connection's opener says who it is (after the preamble).
    DataHello { rank: u32 },
    /// A rank's RDMA connection info (see `rdma::LocalInfo`), to rank 0.
    RdmaInfo(Vec<u8>),
    /// Every rank's RDMA connection info, from rank 0, indexed by rank.
    RdmaTable(Vec<Vec<u8>>),
}

/// `n` bytes from the operating system's random source (`getrandom`, which picks
/// the right one: the getrandom(2) call, with a fallback where it is missing).
pub(crate) fn random_bytes(n: usize) -> std::io::Result<Vec<u8>> {
    let mut b = vec![0u8; n];
    getrandom::fill(&mut b)
        .map_err(|e| std::io::Error::other(format!("the OS random source failed: {e}")))?;
    Ok(b)
}

/// `n` random bytes in hex (job tokens, secrets, job ids).
pub(crate) fn random_hex(n: usize) -> std::io::Result<String> {
    Ok(random_bytes(n)?
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

fn tag_mac(token: &str, label: &[u8], c: &[u8], s: &[u8]) -> Hmac<Sha256> {
    // HMAC accepts keys of any length (longer ones are hashed first).
    let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(token.as_bytes())
        .expect("HMAC takes keys of any length");
    m.update(label);
    m.update(&(c.len() as u32).to_le_bytes());
    m.update(c);
    m.update(s);
    m
}

/// The tag one side sends: `HMAC-SHA256(token, label || len(c) || c || s)`.
fn tag(token: &str, label: &[u8], c: &[u8], s: &[u8]) -> Vec<u8> {
    tag_mac(token, label, c, s).finalize().into_bytes().to_vec()
}

/// Checks a tag in constant time.
fn tag_ok(token: &str, label: &[u8], c: &[u8], s: &[u8], got: &[u8]) -> bool {
    tag_mac(token, label, c, s).verify_slice(got).is_ok()
}

/// Why an opener's handshake failed; callers turn it into a message naming the
/// address and what to do.
#[derive(Debug)]
pub(crate) enum DialError {
    /// The peer accepted the connection but did not answer in time.
    Timeout,
    /// The peer answered something that is not this protocol.
    NotGossamer,
    /// The peer speaks the protocol but proved another token.
    BadToken,
    /// The peer closed the connection (or it broke) during the handshake.
    Closed(std::io::Error),
}

impl std::fmt::Display for DialError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DialError::Timeout => f.write_str("timed out"),
            DialError::NotGossamer => f.write_str("bad protocol magic"),
            DialError::BadToken => f.write_str("authentication failed"),
            DialError::Closed(e) => write!(f, "connection closed during the handshake ({e})"),
        }
    }
}

fn dial_io(e: std::io::Error) -> DialError {
    match e.kind() {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => DialError::Timeout,
        _ => DialError::Closed(e),
    }
}

/// Reads exactly `buf.len()` bytes before `deadline`.
fn read_by(s: &mut TcpStream, buf: &mut [u8], deadline: Instant) -> Result<usize, DialError> {
    let mut got = 0;
    while got < buf.len() {
        let left = deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or(DialError::Timeout)?;
        s.set_read_timeout(Some(left)).map_err(DialError::Closed)?;
        match s.read(&mut buf[got..]) {
            Ok(0) => return Ok(got),
            Ok(n) => got += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(dial_io(e)),
        }
    }
    Ok(got)
}

/// The opener's side of the handshake (see the module docs). The token never
/// leaves this process; the opener answers only after the acceptor proved it.
pub(crate) fn dial_auth(
    s: &mut TcpStream,
    token: &str,
    deadline: Instant,
) -> Result<(), DialError> {
    let c = random_bytes(NONCE).map_err(DialError::Closed)?;
    let mut hello = MAGIC.to_vec();
    hello.extend_from_slice(&c);
    s.write_all(&hello).map_err(dial_io)?;
    let mut magic = [0u8; 8];
    let got = read_by(s, &mut magic, deadline)?;
    if magic[..got] != MAGIC[..got] {
        return Err(DialError::NotGossamer);
    }
    if got < magic.len() {
        return Err(DialError::Closed(ErrorKind::UnexpectedEof.into()));
    }
    let mut rest = [0u8; NONCE + TAG];
    if read_by(s, &mut rest, deadline)? < rest.len() {
        return Err(DialError::Closed(ErrorKind::UnexpectedEof.into()));
    }
    let (sn, their) = rest.split_at(NONCE);
    if !tag_ok(token, ACCEPTOR, &c, sn, their) {
        return Err(DialError::BadToken);
    }
    s.write_all(&tag(token, OPENER, &c, sn)).map_err(dial_io)?;
    s.set_read_timeout(None).map_err(DialError::Closed)?;
    Ok(())
}

/// Where an accepted connection is in the handshake.
enum Stage {
    /// Waiting for `MAGIC` + the opener's nonce.
    Opening,
    /// Waiting for the opener's tag (our answer is sent).
    Proving { c: Vec<u8>, s: Vec<u8> },
    /// Authenticated: waiting for the first framed message.
    Message,
}

struct Pending {
    s: TcpStream,
    from: SocketAddr,
    since: Instant,
    stage: Stage,
    buf: Vec<u8>,
}

impl Pending {
    fn authenticated(&self) -> bool {
        matches!(self.stage, Stage::Message)
    }

    /// How many bytes the current stage still needs.
    fn want(&self) -> usize {
        match self.stage {
            Stage::Opening => MAGIC.len() + NONCE,
            Stage::Proving { .. } => TAG,
            Stage::Message if self.buf.len() < 4 => 4,
            Stage::Message => 4 + u32::from_le_bytes(self.buf[..4].try_into().unwrap()) as usize,
        }
    }

    /// Reads what is available (never beyond the current stage) and advances.
    /// `Ok(Some(msg))` once the first message arrived; `Ok(None)` for "not yet".
    fn step(&mut self, token: &str) -> Result<Option<Msg>, String> {
        loop {
            if self.authenticated() && self.buf.len() >= 4 {
                let len = u32::from_le_bytes(self.buf[..4].try_into().unwrap()) as usize;
                if len > MAX_FRAME {
                    return Err(format!("first frame of {len} bytes (limit {MAX_FRAME})"));
                }
            }
            let want = self.want();
            if self.buf.len() < want {
                let have = self.buf.len();
                self.buf.resize(want, 0);
                let r = self.s.read(&mut self.buf[have..]);
                match r {
                    Ok(0) => {
                        self.buf.truncate(have);
                        return Err(match self.stage {
                            Stage::Message => "closed before its first message".into(),
                            // A rank of another job (another token) checks our
                            // proof first, finds it wrong and closes without
                            // answering (see `dial_auth`).
                            Stage::Proving { .. } if have == 0 => {
                                "authentication failed: the peer checked this side's proof of \
                                 the token and closed without proving its own (its \
                                 GOSSAMER_TOKEN differs)"
                                    .into()
                            }
                            Stage::Opening if have == 0 => "closed without a handshake".into(),
                            _ => "closed during the handshake".into(),
                        });
                    }
                    Ok(n) => self.buf.truncate(have + n),
                    Err(e) => {
                        self.buf.truncate(have);
                        return match e.kind() {
                            ErrorKind::WouldBlock | ErrorKind::Interrupted => Ok(None),
                            _ => Err(format!("connection error ({e})")),
                        };
                    }
                }
                continue;
            }
            match std::mem::replace(&mut self.stage, Stage::Message) {
                Stage::Opening => {
                    if &self.buf[..MAGIC.len()] != MAGIC {
                        return Err("not a gossamer rack connection (bad protocol magic)".into());
                    }
                    let c = self.buf[MAGIC.len()..].to_vec();
                    let s = random_bytes(NONCE).map_err(|e| format!("no random nonce: {e}"))?;
                    let mut answer = MAGIC.to_vec();
                    answer.extend_from_slice(&s);
                    answer.extend_from_slice(&tag(token, ACCEPTOR, &c, &s));
                    // 72 bytes into a fresh socket's empty send buffer: written whole.
                    match self.s.write(&answer) {
                        Ok(n) if n == answer.len() => {}
                        Ok(_) => return Err("could not send the handshake answer".into()),
                        Err(e) => return Err(format!("could not send the handshake answer ({e})")),
                    }
                    self.stage = Stage::Proving { c, s };
                }
                Stage::Proving { c, s } => {
                    if !tag_ok(token, OPENER, &c, &s, &self.buf) {
                        return Err(
                            "authentication failed: the peer's GOSSAMER_TOKEN differs".into()
                        );
                    }
                    self.stage = Stage::Message;
                }
                Stage::Message => {
                    return recv(&mut &self.buf[..])
                        .map(Some)
                        .map_err(|e| format!("unreadable first message ({e})"));
                }
            }
            self.buf.clear();
        }
    }
}

/// Accepts authenticated connections on a listener, many handshakes at once.
pub(crate) struct Acceptor<'a> {
    listener: &'a TcpListener,
    token: &'a str,
    /// Who we are, for log lines ("rank 0").
    who: String,
    pending: VecDeque<Pending>,
}

impl<'a> Acceptor<'a> {
    pub(crate) fn new(
        listener: &'a TcpListener,
        token: &'a str,
        who: String,
    ) -> std::io::Result<Self> {
        listener.set_nonblocking(true)?;
        Ok(Acceptor {
            listener,
            token,
            who,
            pending: VecDeque::new(),
        })
    }

    fn drop_pending(&mut self, i: usize, why: &str) {
        if let Some(p) = self.pending.remove(i) {
            eprintln!(
                "gossamer: {} refused a connection from {}: {why}",
                self.who, p.from
            );
        }
    }

    /// Waits for the next connection that completes the handshake and sends its
    /// first message; returns it in blocking mode. `Ok(None)` at `deadline`.
    pub(crate) fn next(
        &mut self,
        deadline: Instant,
    ) -> Result<Option<(TcpStream, SocketAddr, Msg)>, String> {
        loop {
            let mut progress = false;
            loop {
                match self.listener.accept() {
                    Ok((s, from)) => {
                        progress = true;
                        s.set_nonblocking(true)
                            .map_err(|e| format!("accepting connections: {e}"))?;
                        self.pending.push_back(Pending {
                            s,
                            from,
                            since: Instant::now(),
                            stage: Stage::Opening,
                            buf: Vec::new(),
                        });
                        if self.pending.len() > MAX_PENDING {
                            let oldest = self
                                .pending
                                .iter()
                                .position(|p| !p.authenticated())
                                .unwrap_or(0);
                            self.drop_pending(
                                oldest,
                                &format!(
                                    "more than {MAX_PENDING} connections in the handshake;                                      dropped the oldest unauthenticated one"
                                ),
                            );
                        }
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(e)
                        if matches!(
                            e.kind(),
                            ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
                        ) => {}
                    Err(e) => return Err(format!("accepting connections: {e}")),
                }
            }
            let now = Instant::now();
            let mut i = 0;
            while i < self.pending.len() {
                let p = &mut self.pending[i];
                let before = (p.buf.len(), p.authenticated());
                match p.step(self.token) {
                    Ok(Some(m)) => {
                        let p = self.pending.remove(i).expect("index in range");
                        p.s.set_nonblocking(false)
                            .map_err(|e| format!("accepted connection: {e}"))?;
                        return Ok(Some((p.s, p.from, m)));
                    }
                    Ok(None) if now.duration_since(p.since) > AUTH_TIMEOUT => {
                        let why = if p.authenticated() {
                            format!("no first message within {} s", AUTH_TIMEOUT.as_secs())
                        } else {
                            format!("no handshake within {} s", AUTH_TIMEOUT.as_secs())
                        };
                        self.drop_pending(i, &why);
                    }
                    Ok(None) => {
                        progress |= before != (p.buf.len(), p.authenticated());
                        i += 1;
                    }
                    Err(e) => self.drop_pending(i, &e),
                }
            }
            if Instant::now() >= deadline {
                return Ok(None);
            }
            if !progress {
                self.wait_readable(deadline);
            }
        }
    }

    /// Sleeps until the listener or a pending connection is readable, `deadline`,
    /// or at most 50 ms (to check the per-connection deadlines again).
    fn wait_readable(&self, deadline: Instant) {
        use std::os::fd::AsRawFd;
        let mut fds: Vec<libc::pollfd> = std::iter::once(self.listener.as_raw_fd())
            .chain(self.pending.iter().map(|p| p.s.as_raw_fd()))
            .map(|fd| libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        let ms = deadline
            .saturating_duration_since(Instant::now())
            .min(Duration::from_millis(50))
            .as_millis() as libc::c_int;
        // SAFETY: `fds` is a valid array of `fds.len()` pollfd structs that poll
        // may write `revents` into; the descriptors are open (owned by `self`).
        unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
    }
}

/// Writes one framed message.
pub(crate) fn send(s: &mut impl Write, m: &Msg) -> std::io::Result<()> {
    let body = postcard::to_allocvec(m)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
    let mut b = Vec::with_capacity(4 + body.len());
    b.extend_from_slice(&(body.len() as u32).to_le_bytes());
    b.extend_from_slice(&body);
    s.write_all(&b)
}

/// Reads one framed message.
pub(crate) fn recv(s: &mut impl Read) -> std::io::Result<Msg> {
    let mut len = [0u8; 4];
    s.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("control frame of {len} bytes (limit {MAX_FRAME})"),
        ));
    }
    let mut body = vec![0u8; len];
    s.read_exact(&mut body)?;
    postcard::from_bytes(&body)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip() {
        let msgs = [
            Msg::Hello {
                rank: 3,
                size: 4,
                threads: 2,
                slot_size: 1024,
                transport: "tcp".into(),
                identity: Identity {
                    build_id: vec![1, 2, 3],
                    exe_sha256: vec![7; 32],
                    anchor: 0x5555_0000,
                },
                data_addr: "10.0.0.3:4000".into(),
                pid: 42,
                args: vec!["sssp".into(), "--scale".into(), "12".into()],
                agreed: vec![("collective_fanout".into(), 16)],
            },
            Msg::Table {
                shm_path: Some("/dev/shm/x".into()),
                data_addrs: vec!["a".into(), "b".into()],
            },
            Msg::Quiescent(7, Some(99)),
            Msg::Abort {
                rank: 2,
                cause: "killed".into(),
            },
        ];
        for m in msgs {
            let mut b = Vec::new();
            send(&mut b, &m).unwrap();
            assert_eq!(recv(&mut &b[..]).unwrap(), m);
        }
        let huge = (MAX_FRAME as u32 + 1).to_le_bytes();
        assert!(recv(&mut &huge[..]).is_err());
    }

    fn dial(addr: SocketAddr, token: &str) -> Result<TcpStream, DialError> {
        let mut s = TcpStream::connect(addr).unwrap();
        dial_auth(&mut s, token, Instant::now() + Duration::from_secs(30)).map(|_| s)
    }

    #[test]
    fn handshake_authenticates_both_ways_and_never_sends_the_token() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let t = std::thread::spawn(move || {
            let mut a = Acceptor::new(&l, "right", "test".into()).unwrap();
            let deadline = Instant::now() + Duration::from_secs(30);
            let (_, _, m) = a.next(deadline).unwrap().unwrap();
            m
        });
        // A wrong token: the opener finds out from the acceptor's tag and never
        // answers; the acceptor drops it.
        assert!(matches!(dial(addr, "wrong"), Err(DialError::BadToken)));
        let mut good = dial(addr, "right").unwrap();
        send(&mut good, &Msg::Go).unwrap();
        assert_eq!(t.join().unwrap(), Msg::Go);

        // A listener that is not ours sees a nonce, never the token.
        let fake = TcpListener::bind("127.0.0.1:0").unwrap();
        let faddr = fake.local_addr().unwrap();
        let t = std::thread::spawn(move || {
            let (mut s, _) = fake.accept().unwrap();
            let mut got = vec![0u8; 40];
            s.read_exact(&mut got).unwrap();
            s.write_all(b"HTTP/1.0 400 Bad Request\r\n\r\n").unwrap();
            got
        });
        assert!(matches!(
            dial(faddr, "secret-token-0123"),
            Err(DialError::NotGossamer)
        ));
        let seen = t.join().unwrap();
        assert_eq!(&seen[..8], MAGIC);
        assert!(!seen
            .windows(6)
            .any(|w| "secret-token-0123".as_bytes().windows(6).any(|t| t == w)));
    }

    #[test]
    fn acceptor_reads_nothing_from_an_unauthenticated_peer_and_survives_idle_ones() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        // Idle connections first: they must not delay the real one.
        let idle: Vec<TcpStream> = (0..MAX_PENDING + 5)
            .map(|_| TcpStream::connect(addr).unwrap())
            .collect();
        let mut junk = TcpStream::connect(addr).unwrap();
        junk.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
        let t = std::thread::spawn(move || {
            let mut a = Acceptor::new(&l, "right", "test".into()).unwrap();
            a.next(Instant::now() + Duration::from_secs(30)).unwrap()
        });
        let mut good = dial(addr, "right").unwrap();
        send(&mut good, &Msg::Mapped).unwrap();
        let (_, _, m) = t.join().unwrap().expect("the real peer got through");
        assert_eq!(m, Msg::Mapped);
        drop(idle);
    }

    #[test]
    fn the_acceptor_names_a_wrong_token_not_a_silent_close() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let opener = std::thread::spawn(move || dial(addr, "wrong"));
        let (s, from) = l.accept().unwrap();
        let mut p = Pending {
            s,
            from,
            since: Instant::now(),
            stage: Stage::Opening,
            buf: Vec::new(),
        };
        // A blocking socket: each step reads until the peer sends or closes.
        let why = loop {
            match p.step("right") {
                Ok(None) => continue,
                Ok(Some(m)) => panic!("a wrong token got through: {m:?}"),
                Err(e) => break e,
            }
        };
        assert!(matches!(opener.join().unwrap(), Err(DialError::BadToken)));
        assert!(why.starts_with("authentication failed"), "{why}");
        assert!(why.contains("GOSSAMER_TOKEN differs"), "{why}");
        // One line, with no runs of blanks from the source's layout.
        assert!(!why.contains("  ") && !why.contains('\n'), "{why:?}");
    }

    #[test]
    fn a_silent_acceptor_is_a_timeout() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut s = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let r = dial_auth(&mut s, "t", Instant::now() + Duration::from_millis(200));
        assert!(matches!(r, Err(DialError::Timeout)), "{r:?}");
    }
}
