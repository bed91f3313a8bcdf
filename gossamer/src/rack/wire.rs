//! Bytes on rack connections: the authentication preamble and framed control
//! messages.
//!
//! Every connection (control to rank 0, tcp data between ranks) starts with the
//! opener sending `MAGIC`, a `u16` length and the job token. The acceptor reads
//! exactly that, with a timeout, and compares the token in constant time *before it
//! reads anything else*; on a mismatch it closes the connection. A peer without the
//! token therefore never gets a byte parsed, let alone executed.
//!
//! Control messages are `u32` little-endian length + postcard-encoded [`Msg`]
//! (at most [`MAX_FRAME`] bytes).

use super::image::Identity;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// First bytes of every rack connection (name and protocol version).
pub(crate) const MAGIC: &[u8; 8] = b"GSMRACK1";
/// Largest control frame.
pub(crate) const MAX_FRAME: usize = 1 << 20;
/// How long an acceptor waits for the preamble.
pub(crate) const AUTH_TIMEOUT: Duration = Duration::from_secs(5);

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

/// Sends the authentication preamble.
pub(crate) fn send_auth(s: &mut impl Write, token: &str) -> std::io::Result<()> {
    let mut b = Vec::with_capacity(10 + token.len());
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&(token.len() as u16).to_le_bytes());
    b.extend_from_slice(token.as_bytes());
    s.write_all(&b)
}

/// Constant-time equality (time depends only on the lengths).
pub(crate) fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len().max(b.len());
    let mut diff = (a.len() ^ b.len()) as u64;
    for i in 0..n {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        diff |= (x ^ y) as u64;
    }
    diff == 0
}

/// Reads and checks the preamble on an accepted connection. Reads nothing beyond it.
pub(crate) fn check_auth(s: &mut TcpStream, token: &str) -> Result<(), String> {
    s.set_read_timeout(Some(AUTH_TIMEOUT))
        .map_err(|e| e.to_string())?;
    let mut head = [0u8; 10];
    s.read_exact(&mut head)
        .map_err(|e| format!("no preamble ({e})"))?;
    if &head[..8] != MAGIC {
        return Err("not a gossamer rack connection (bad magic)".into());
    }
    let len = u16::from_le_bytes([head[8], head[9]]) as usize;
    if len > 256 {
        return Err("token too long".into());
    }
    let mut got = vec![0u8; len];
    s.read_exact(&mut got)
        .map_err(|e| format!("truncated token ({e})"))?;
    if !ct_eq(&got, token.as_bytes()) {
        return Err("wrong job token".into());
    }
    s.set_read_timeout(None).map_err(|e| e.to_string())?;
    Ok(())
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
    use std::net::TcpListener;

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
                    anchor: 0x5555_0000,
                },
                data_addr: "10.0.0.3:4000".into(),
                pid: 42,
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

    #[test]
    fn constant_time_compare() {
        assert!(ct_eq(b"abc", b"abc"));
        assert!(!ct_eq(b"abc", b"abd"));
        assert!(!ct_eq(b"abc", b"abcd"));
        assert!(ct_eq(b"", b""));
    }

    #[test]
    fn preamble_is_checked_before_anything_else() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let t = std::thread::spawn(move || {
            let mut out = Vec::new();
            for _ in 0..3 {
                let (mut s, _) = l.accept().unwrap();
                out.push(check_auth(&mut s, "right").map(|_| recv(&mut s).unwrap()));
            }
            out
        });
        let mut good = TcpStream::connect(addr).unwrap();
        send_auth(&mut good, "right").unwrap();
        send(&mut good, &Msg::Go).unwrap();
        let mut bad = TcpStream::connect(addr).unwrap();
        send_auth(&mut bad, "wrong").unwrap();
        send(&mut bad, &Msg::Go).unwrap();
        let mut junk = TcpStream::connect(addr).unwrap();
        junk.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
        let r = t.join().unwrap();
        assert_eq!(r[0], Ok(Msg::Go));
        assert_eq!(r[1], Err("wrong job token".to_string()));
        assert!(r[2].as_ref().unwrap_err().contains("magic"));
    }
}
