//! Bootstrap through rank 0, and setting up this rank's slots and transport.
//!
//! Bootstrap (every connection starts with the mutual token handshake, see `wire`):
//! 1. rank 0 listens on the coordinator address (and, for shm, creates the region);
//! 2. every other rank connects (retrying for up to a minute) and sends `Hello`
//!    (size, threads, slot size, transport, identity, arguments, the shared
//!    configuration, tcp data address; see `hello`);
//! 3. rank 0 checks each hello against its own (same binary at the same address,
//!    same arguments and configuration) and refuses the whole job on a mismatch; once all ranks
//!    said hello it sends `Table` (shm path, data addresses);
//! 4. every rank maps the region / opens its tcp links and answers `Mapped`;
//! 5. rank 0 unlinks the region file (everyone has it mapped now) and sends `Go`.

use super::fate::leaf;
use super::hello::{check_hello, hello};
use super::image::text_bounds;
use super::layout::Layout;
use super::shm::{path_for, sweep_stale, ShmRegion, Unlink};
use super::slots::{LocalRows, RackSlots};
use super::tcp::{self, Waits};
use super::termination::root;
use super::wire::{self, Msg};
use super::{Alarm, RankEnv, TransportKind};
use crate::config::Config;
use crate::park::Parking;
use crate::runtime::Error;
use crate::transport::Transport;
use crate::worker::{Fate, Placement, Shared};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Runtime id of a rack run (every rank has the same, so trusts travel).
const RACK_RT: u64 = 0x5ac0_0000_0000_0001;

pub(super) fn rack_err(m: impl Into<String>) -> Error {
    Error::Rack(m.into())
}

fn resolve(addr: &str) -> Result<SocketAddr, Error> {
    addr.to_socket_addrs()
        .map_err(|e| rack_err(format!("bad coordinator address {addr:?}: {e}")))?
        .next()
        .ok_or_else(|| rack_err(format!("coordinator address {addr:?} resolves to nothing")))
}

/// The other side of the control link(s).
enum Ctl {
    /// Rank 0: a connection per other rank (index 0 unused).
    Root(Vec<Option<TcpStream>>),
    /// Other ranks: the connection to rank 0.
    Leaf(TcpStream),
}

struct Joined {
    ctl: Ctl,
    shm_path: Option<String>,
    data_addrs: Vec<String>,
    data_listener: Option<TcpListener>,
    shm: Option<ShmRegion>,
    /// Rank 0: removes the region file on drop (any failed bootstrap) or once
    /// every rank mapped it.
    unlink: Unlink,
}

/// The table's shm path when the region is the launcher's unnamed memfd.
const MEMFD: &str = "memfd:GOSSAMER_SHM_FD";

/// Rank 0's listening socket on the coordinator address: the one the built-in
/// launcher bound and handed down (no window in which another process could take
/// the port), else a fresh bind that fails at once when the port is taken.
fn coordinator_listener(env: &RankEnv, addr: SocketAddr) -> Result<TcpListener, Error> {
    if let Some(fd) = env.listen_fd {
        return adopt_listener(fd, addr);
    }
    TcpListener::bind(addr).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AddrInUse {
            rack_err(format!(
                "rank 0 cannot listen on the coordinator address {addr}: the port is already \
                 in use by another process (another job, or one squatting on it; no rank has \
                 sent it anything). Set GOSSAMER_COORDINATOR to a free host:port, the same on \
                 every rank"
            ))
        } else {
            rack_err(format!("rank 0 could not listen on {addr}: {e}"))
        }
    })
}

/// Takes over the listening socket inherited as descriptor `fd` (once per process).
fn adopt_listener(fd: i32, addr: SocketAddr) -> Result<TcpListener, Error> {
    use std::os::fd::FromRawFd;
    static TAKEN: AtomicBool = AtomicBool::new(false);
    if TAKEN.swap(true, Ordering::SeqCst) {
        return Err(rack_err(format!(
            "the coordinator socket GOSSAMER_COORDINATOR_FD={fd} was already used by an \
             earlier run in this process: a process joins one rack job"
        )));
    }
    // SAFETY: fstat writes into the zeroed struct we pass; any fd number is fine
    // (a closed one fails with EBADF).
    let is_socket = unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        libc::fstat(fd, &mut st) == 0 && st.st_mode & libc::S_IFMT == libc::S_IFSOCK
    };
    if !is_socket {
        return Err(rack_err(format!(
            "GOSSAMER_COORDINATOR_FD={fd} is not an open socket of this process"
        )));
    }
    // SAFETY: `fd` is an open socket that the launcher passed to this process for
    // this purpose only (nothing else in the process uses it), and `TAKEN` makes
    // sure we take ownership of it once.
    let l = unsafe { TcpListener::from_raw_fd(fd) };
    // SAFETY: sets the close-on-exec flag of a descriptor we own.
    unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    match l.local_addr() {
        Ok(a) if a == addr => Ok(l),
        Ok(a) => Err(rack_err(format!(
            "the inherited coordinator socket listens on {a}, not on GOSSAMER_COORDINATOR={addr}"
        ))),
        Err(e) => Err(rack_err(format!(
            "GOSSAMER_COORDINATOR_FD={fd} is not a listening tcp socket: {e}"
        ))),
    }
}

/// Ranks for a message, in runs: "rank 3", "ranks 1-4, 7", and beyond a
/// few runs their count instead of all of them ("ranks 1-9, 11, ... (99998
/// in all)").
fn rank_list(ranks: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &r in ranks {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == r => *end = r,
            _ => runs.push((r, r)),
        }
    }
    const SHOWN: usize = 8;
    let mut text: Vec<String> = runs
        .iter()
        .take(SHOWN)
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    if runs.len() > SHOWN {
        text.push(format!("... ({} in all)", ranks.len()));
    }
    let noun = if ranks.len() == 1 { "rank" } else { "ranks" };
    format!("{noun} {}", text.join(", "))
}

fn join_root(
    env: &RankEnv,
    c: &Config,
    kind: TransportKind,
    layout: Layout,
) -> Result<Joined, Error> {
    let addr = resolve(&env.coordinator)?;
    let join_timeout = env.join_timeout;
    let deadline = Instant::now() + join_timeout;
    let listener = coordinator_listener(env, addr)?;
    let (data_listener, my_data) = data_listener(kind, addr.ip(), env)?;
    let mut unlink = Unlink(None);
    let (shm, shm_path) = if kind == TransportKind::Shm {
        let bytes = layout.shm_bytes(env.size);
        if let Some(fd) = env.shm_fd {
            let r = ShmRegion::from_fd(fd, bytes, true).map_err(rack_err)?;
            (Some(r), Some(MEMFD.to_string()))
        } else {
            sweep_stale();
            let p = path_for(&env.job, std::process::id());
            let r = ShmRegion::create(&p, bytes).map_err(rack_err)?;
            unlink.0 = Some(p.clone());
            (Some(r), Some(p.to_string_lossy().into_owned()))
        }
    } else {
        (None, None)
    };
    // Any error return from here on drops `unlink`, which removes the file.
    let fail = |m: String, streams: &mut Vec<Option<TcpStream>>| {
        for s in streams.iter_mut().flatten() {
            let _ = wire::send(s, &Msg::Refused(m.clone()));
        }
        rack_err(m)
    };
    let mine = hello(env, c, kind, my_data.clone());
    let mut streams: Vec<Option<TcpStream>> = (0..env.size).map(|_| None).collect();
    let mut joined = vec![false; env.size];
    joined[0] = true;
    let mut data_addrs = vec![String::new(); env.size];
    data_addrs[0] = my_data;
    let mut acceptor = wire::Acceptor::new(&listener, &env.token, "rank 0".into())
        .map_err(|e| rack_err(format!("rank 0 cannot accept on {addr}: {e}")))?;
    while joined.iter().any(|j| !j) {
        let (mut s, _from, h) = match acceptor.next(deadline) {
            Ok(Some(x)) => x,
            Ok(None) => {
                let missing: Vec<usize> = (0..env.size).filter(|&r| !joined[r]).collect();
                return Err(fail(
                    format!(
                        "{} did not join within {} s",
                        rank_list(&missing),
                        join_timeout.as_secs()
                    ),
                    &mut streams,
                ));
            }
            Err(e) => return Err(fail(e, &mut streams)),
        };
        match check_hello(&mine, &h, &joined) {
            Ok(r) => {
                if let Msg::Hello { data_addr, .. } = h {
                    data_addrs[r] = data_addr;
                }
                let _ = s.set_read_timeout(None);
                joined[r] = true;
                streams[r] = Some(s);
            }
            Err(m) => {
                let _ = wire::send(&mut s, &Msg::Refused(m.clone()));
                return Err(fail(format!("refusing to start: {m}"), &mut streams));
            }
        }
    }
    let table = Msg::Table {
        shm_path: shm_path.clone(),
        data_addrs: data_addrs.clone(),
    };
    for s in streams.iter_mut().flatten() {
        wire::send(s, &table).map_err(|e| rack_err(format!("sending the table: {e}")))?;
    }
    Ok(Joined {
        ctl: Ctl::Root(streams),
        shm_path,
        data_addrs,
        data_listener,
        shm,
        unlink,
    })
}

/// This rank's tcp data listener (on `GOSSAMER_DATA_LISTEN`, else on `ip` at a
/// free port) and the address the other ranks are told to dial for it
/// (`GOSSAMER_DATA_ADVERTISE`, else the bound address).
fn data_listener(
    kind: TransportKind,
    ip: std::net::IpAddr,
    env: &RankEnv,
) -> Result<(Option<TcpListener>, String), Error> {
    if kind != TransportKind::Tcp {
        return Ok((None, String::new()));
    }
    let rank = env.rank;
    let (bind, given) = match env.data_link.listen {
        Some(a) => (a, " (GOSSAMER_DATA_LISTEN)"),
        None => (SocketAddr::new(ip, 0), ""),
    };
    let l = TcpListener::bind(bind).map_err(|e| {
        rack_err(format!(
            "rank {rank} could not open its tcp data listener on {bind}{given}: {e}"
        ))
    })?;
    let a = l.local_addr().map_err(|e| rack_err(e.to_string()))?;
    let advertised = match &env.data_link.advertise {
        Some(a) => a.clone(),
        None if a.ip().is_unspecified() => {
            return Err(rack_err(format!(
                "rank {rank}'s tcp data listener is bound to {a}, an address other ranks \
                 cannot dial: set GOSSAMER_DATA_ADVERTISE=HOST:PORT to the address they reach \
                 it at"
            )))
        }
        None => a.to_string(),
    };
    Ok((Some(l), advertised))
}

fn join_leaf(env: &RankEnv, c: &Config, kind: TransportKind) -> Result<Joined, Error> {
    let addr = resolve(&env.coordinator)?;
    let (rank, join_timeout) = (env.rank, env.join_timeout);
    let secs = join_timeout.as_secs();
    let deadline = Instant::now() + join_timeout;
    // Connect and authenticate; a connection the coordinator closed during the
    // handshake (e.g. dropped under a flood of other connections) is retried.
    let mut s = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut s = match TcpStream::connect_timeout(&addr, left.max(Duration::from_millis(1))) {
            Ok(s) => s,
            Err(e) if Instant::now() < deadline => {
                let _ = e;
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
            Err(e) => {
                return Err(rack_err(format!(
                    "rank {rank} could not reach the coordinator (rank 0) at {addr} within \
                     {secs} s: {e}"
                )))
            }
        };
        let e = match wire::dial_auth(&mut s, &env.token, deadline) {
            Ok(()) => break s,
            Err(wire::DialError::Closed(_)) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
            Err(e) => e,
        };
        return Err(rack_err(match e {
            wire::DialError::Timeout => format!(
                "rank {rank}: timed out waiting for the coordinator at {addr} after {secs} s \
                 (it accepted the connection but never answered the handshake: rank 0 is \
                 stuck, or another program listens there)"
            ),
            wire::DialError::NotGossamer => format!(
                "rank {rank}: the peer at {addr} is not a gossamer coordinator (bad protocol \
                 magic): another program listens on that port; set GOSSAMER_COORDINATOR to \
                 rank 0's host:port"
            ),
            wire::DialError::BadToken => format!(
                "rank {rank}: authentication failed: the GOSSAMER_TOKEN differs from the one \
                 of the coordinator at {addr}; give every rank the same GOSSAMER_TOKEN (without \
                 one, ranks on different hosts each create their own secret)"
            ),
            wire::DialError::Closed(e) => format!(
                "rank {rank}: the coordinator at {addr} kept closing the connection during the \
                 handshake for {secs} s ({e}): it is not a gossamer coordinator of this \
                 version, or it is flooded with connections"
            ),
        }));
    };
    let local_ip = s.local_addr().map_err(|e| rack_err(e.to_string()))?.ip();
    let (data_listener, my_data) = data_listener(kind, local_ip, env)?;
    wire::send(&mut s, &hello(env, c, kind, my_data)).map_err(|e| rack_err(e.to_string()))?;
    // Rank 0 answers once every rank joined: give it its own timeout and some more.
    let _ = s.set_read_timeout(Some(join_timeout + Duration::from_secs(10)));
    match wire::recv(&mut s) {
        Ok(Msg::Table {
            shm_path,
            data_addrs,
        }) => Ok(Joined {
            ctl: Ctl::Leaf(s),
            shm_path,
            data_addrs,
            data_listener,
            shm: None,
            unlink: Unlink(None),
        }),
        Ok(Msg::Refused(m)) => Err(rack_err(format!("rank 0 refused to start: {m}"))),
        Ok(m) => Err(rack_err(format!("unexpected bootstrap message {m:?}"))),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            Err(rack_err(format!(
                "rank {rank}: timed out waiting for the coordinator at {addr} after {} s: rank \
                 0 accepted this rank but never sent the job table (another rank did not join?)",
                (join_timeout + Duration::from_secs(10)).as_secs()
            )))
        }
        Err(e) => Err(rack_err(format!(
            "rank {rank}: the coordinator (rank 0) at {addr} closed the connection during \
             bootstrap ({e}): rank 0 failed or gave up; its output says why"
        ))),
    }
}

/// Runs this rank of a rack job (see [`Builder::run`](crate::Builder::run)) with
/// `c` (its slot size resolved) over `transport` (default shm).
pub(crate) fn run_rank<R: Send + 'static>(
    c: Config,
    transport: Option<TransportKind>,
    env: RankEnv,
    gsm_main: impl FnOnce() -> R + Send + 'static,
) -> Result<R, Error> {
    let kind = transport.unwrap_or(TransportKind::Shm);
    match kind {
        TransportKind::Local => {
            return Err(Error::Config(format!(
                "transport local runs one process, but this job has {} ranks: use shm (one host) or tcp",
                env.size
            )))
        }
        #[cfg(not(feature = "rdma"))]
        TransportKind::Rdma => {
            return Err(Error::Config(
                "this program was built without the rdma transport: build it with \
                 `cargo build --features rdma` (needs libibverbs-dev), or use tcp"
                    .into(),
            ))
        }
        _ => {}
    }
    let t = c.threads;
    let n = t * env.size;
    // The slot memory, before anything is mapped or allocated, for ranks that
    // no launcher of ours checked (started by hand, mpirun, srun; the built-in
    // launcher passes GOSSAMER_SHM_FD and checked before it started them): on
    // one host (shm) every rank maps the one region of all ranks' rows, so
    // each checks it (a hand-started rank learns why at once, not when rank 0
    // gives up waiting); over tcp or rdma each rank holds its own rows.
    let slot = c.effective_slot_size(env.size);
    match kind {
        TransportKind::Shm if env.shm_fd.is_none() => {
            crate::runtime::check_slot_memory(t, env.size, slot)
        }
        TransportKind::Shm => Ok(()),
        _ => crate::runtime::check_rank_slot_memory(t, env.size, slot),
    }
    .map_err(|m| rack_err(format!("rank {}: {m}", env.rank)))?;
    let layout = Layout {
        t,
        n,
        size: c.effective_slot_size(env.size),
        marks: c.marks_wanted(n),
    };
    let mut j = if env.rank == 0 {
        let j = join_root(&env, &c, kind, layout);
        // Every rank has read the job secret (or the job failed): remove its file.
        if let Some(p) = &env.token_file {
            let _ = std::fs::remove_file(p);
        }
        j?
    } else {
        join_leaf(&env, &c, kind)?
    };
    let fate = Arc::new(Fate::default());

    // Slot memory, parking and the transport.
    let (transport, parking, alarm): (Box<dyn Transport>, Arc<Parking>, Arc<Alarm>) = match kind {
        TransportKind::Shm => {
            let region = match j.shm.take() {
                Some(r) => r,
                None => {
                    let p = j
                        .shm_path
                        .clone()
                        .ok_or_else(|| rack_err("rank 0 sent no shm path"))?;
                    let bytes = layout.shm_bytes(env.size);
                    match (p == MEMFD, env.shm_fd) {
                        (true, Some(fd)) => ShmRegion::from_fd(fd, bytes, false),
                        (true, None) => Err(format!(
                            "rank 0 uses the built-in launcher's shared memory, but rank {} \
                             was not started by that launcher (no GOSSAMER_SHM_FD)",
                            env.rank
                        )),
                        (false, _) => ShmRegion::open(std::path::Path::new(&p), bytes),
                    }
                    .map_err(rack_err)?
                }
            };
            let region = Arc::new(region);
            let base = region.base();
            // SAFETY: the region is `shm_bytes(size)` long (checked on open, sized on
            // create), page-aligned; each rank's rows lie inside it; the futex words
            // occupy the first page(s), zeroed by ftruncate, and are used atomically.
            let (slots, parking) = unsafe {
                let regions = (0..env.size)
                    .map(|r| base.add(layout.shm_region(r)))
                    .collect();
                (
                    RackSlots::new(layout, env.rank, regions, None, region.clone()),
                    Parking::shared(
                        n,
                        base as *const AtomicU32,
                        region.clone(),
                        c.nap,
                        c.crowded_nap,
                    ),
                )
            };
            let parking = Arc::new(parking);
            let alarm = Arc::new(Alarm::new(fate.clone(), parking.clone(), c.watchdog));
            (Box::new(slots), parking, alarm)
        }
        #[cfg(feature = "rdma")]
        TransportKind::Rdma => {
            let setup = super::rdma::setup(layout, env.rank, env.size, c.rdma_signal_every)
                .map_err(rack_err)?;
            let infos = exchange_rdma(&mut j.ctl, env.size, t, setup.info())?;
            // Remote writers cannot wake a sleeping worker: nap briefly.
            let parking = Arc::new(Parking::local(n, c.rdma_nap, c.rdma_nap));
            let alarm = Arc::new(Alarm::new(fate.clone(), parking.clone(), c.watchdog));
            let slots = setup.connect(&infos, alarm.clone()).map_err(rack_err)?;
            (Box::new(slots), parking, alarm)
        }
        _ => {
            let rows = Arc::new(LocalRows::new(layout.region_bytes()));
            let parking = Arc::new(Parking::local(n, c.nap, c.crowded_nap));
            let alarm = Arc::new(Alarm::new(fate.clone(), parking.clone(), c.watchdog));
            let listener = j
                .data_listener
                .take()
                .ok_or_else(|| rack_err("no data listener"))?;
            let links = tcp::connect(
                env.rank,
                &j.data_addrs,
                listener,
                &env.token,
                env.join_timeout,
                layout,
                rows.base(),
                rows.clone(),
                alarm.clone(),
                Waits::of(&c),
            )
            .map_err(rack_err)?;
            let mut regions = vec![std::ptr::null_mut(); env.size];
            regions[env.rank] = rows.base();
            // SAFETY: our rows are `region_bytes` long, 64-aligned, kept by `rows`.
            let slots = unsafe { RackSlots::new(layout, env.rank, regions, Some(links), rows) };
            (Box::new(slots), parking, alarm)
        }
    };

    // Everyone mapped: rank 0 unlinks the region and says go.
    match &mut j.ctl {
        Ctl::Root(streams) => {
            for (r, s) in streams.iter_mut().enumerate() {
                if let Some(s) = s {
                    match wire::recv(s) {
                        Ok(Msg::Mapped) => {}
                        // (returning drops `j.unlink`, which removes the file)
                        other => {
                            return Err(rack_err(format!("rank {r} did not get ready: {other:?}")))
                        }
                    }
                }
            }
            j.unlink.now();
            for s in streams.iter_mut().flatten() {
                wire::send(s, &Msg::Go).map_err(|e| rack_err(e.to_string()))?;
            }
        }
        Ctl::Leaf(s) => {
            wire::send(s, &Msg::Mapped).map_err(|e| rack_err(e.to_string()))?;
            match wire::recv(s) {
                Ok(Msg::Go) => {}
                other => return Err(rack_err(format!("rank 0 did not start the job: {other:?}"))),
            }
        }
    }

    let place = Placement {
        n,
        base: env.rank * t,
        local: t,
        rack: true,
        code_bounds: text_bounds(),
    };
    let shared = Arc::new(Shared::with(
        RACK_RT,
        place,
        layout.size,
        transport,
        parking,
        fate,
        c,
    ));
    match j.ctl {
        Ctl::Root(streams) => root(env, shared, alarm, streams, gsm_main),
        Ctl::Leaf(s) => leaf(env, shared, alarm, s),
    }
}

/// Exchanges every rank's RDMA info through rank 0 (after the table).
#[cfg(feature = "rdma")]
fn exchange_rdma(
    ctl: &mut Ctl,
    size: usize,
    t: usize,
    mine: &super::rdma::LocalInfo,
) -> Result<Vec<super::rdma::LocalInfo>, Error> {
    let parse = |all: Vec<Vec<u8>>| -> Result<Vec<super::rdma::LocalInfo>, Error> {
        all.iter()
            .map(|b| super::rdma::LocalInfo::from_bytes(b, t * size).map_err(rack_err))
            .collect()
    };
    match ctl {
        Ctl::Root(streams) => {
            let mut all = vec![mine.to_bytes()];
            for (r, s) in streams.iter_mut().enumerate().skip(1) {
                let s = s.as_mut().ok_or_else(|| rack_err("missing rank stream"))?;
                match wire::recv(s) {
                    Ok(Msg::RdmaInfo(b)) => all.push(b),
                    other => {
                        return Err(rack_err(format!("rank {r} sent no rdma info: {other:?}")))
                    }
                }
            }
            let table = Msg::RdmaTable(all.clone());
            for s in streams.iter_mut().flatten() {
                wire::send(s, &table).map_err(|e| rack_err(e.to_string()))?;
            }
            parse(all)
        }
        Ctl::Leaf(s) => {
            wire::send(s, &Msg::RdmaInfo(mine.to_bytes())).map_err(|e| rack_err(e.to_string()))?;
            match wire::recv(s) {
                Ok(Msg::RdmaTable(all)) if all.len() == size => parse(all),
                other => Err(rack_err(format!("rank 0 sent no rdma table: {other:?}"))),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::rank_list;

    #[test]
    fn missing_ranks_are_listed_in_runs_and_counted_beyond_a_few() {
        assert_eq!(rank_list(&[3]), "rank 3");
        assert_eq!(rank_list(&[1, 2, 3, 4, 7]), "ranks 1-4, 7");
        // 99999 ranks started by hand but never joined: one short line.
        let all: Vec<usize> = (1..100_000).collect();
        assert_eq!(rank_list(&all), "ranks 1-99999");
        let odd: Vec<usize> = (1..100_000).step_by(2).collect();
        let text = rank_list(&odd);
        assert!(text.ends_with(", ... (50000 in all)"), "{text}");
        assert!(text.len() < 100, "{text}");
    }
}
