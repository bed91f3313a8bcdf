//! Bootstrap through rank 0, then heartbeats, fate sharing and termination.
//!
//! Bootstrap (every connection starts with the token preamble, see `wire`):
//! 1. rank 0 listens on the coordinator address (and, for shm, creates the region);
//! 2. every other rank connects (retrying for up to a minute) and sends `Hello`
//!    (size, threads, slot size, transport, identity, tcp data address);
//! 3. rank 0 checks each hello against its own (same binary at the same address,
//!    same configuration) and refuses the whole job on a mismatch; once all ranks
//!    said hello it sends `Table` (shm path, data addresses);
//! 4. every rank maps the region / opens its tcp links and answers `Mapped`;
//! 5. rank 0 unlinks the region file (everyone has it mapped now) and sends `Go`.
//!
//! Running: rank 0 and each other rank exchange `Heartbeat`s every second over the
//! control connection; silence for 10 s or a closed connection means the peer is
//! gone. A rank that fails reports `Failed`; rank 0 turns any failure into `Abort`
//! for everyone, so all ranks stop with an error naming the failed rank.
//!
//! Termination: when `gsm_main` returned on rank 0, rank 0 asks every rank for a
//! quiescence snapshot (all workers idle, activity sum) twice; two identical rounds
//! of all-idle snapshots mean no request is in flight anywhere (a client with a
//! request out is not idle), so it sends `Stop`; ranks stop, answer `Done` and exit.

use super::image::{text_bounds, Identity};
use super::shm::{path_for, ShmRegion};
use super::slots::{Layout, LocalRows, RackSlots};
use super::wire::{self, Msg};
use super::{tcp, Alarm, RankEnv, TransportKind};
use crate::park::Parking;
use crate::runtime::{finish, join_workers, main_body, Builder, Error};
use crate::transport::Transport;
use crate::worker::{Fate, Placement, Shared};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const JOIN_TIMEOUT: Duration = Duration::from_secs(60);
const HEARTBEAT: Duration = Duration::from_millis(500);
const SILENCE: Duration = Duration::from_secs(10);
/// Runtime id of a rack run (every rank has the same, so trusts travel).
const RACK_RT: u64 = 0x5ac0_0000_0000_0001;

fn rack_err(m: impl Into<String>) -> Error {
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
}

fn hello(env: &RankEnv, b: &Builder, kind: TransportKind, data_addr: String) -> Msg {
    Msg::Hello {
        rank: env.rank as u32,
        size: env.size as u32,
        threads: b.threads as u32,
        slot_size: b.slot_size as u32,
        transport: kind.name().into(),
        identity: Identity::current(),
        data_addr,
        pid: std::process::id(),
    }
}

/// Checks a hello against rank 0's own; the message says what differs.
fn check_hello(mine: &Msg, theirs: &Msg, joined: &[bool]) -> Result<usize, String> {
    let (
        Msg::Hello {
            size,
            threads,
            slot_size,
            transport,
            identity,
            ..
        },
        Msg::Hello {
            rank: r,
            size: s2,
            threads: t2,
            slot_size: ss2,
            transport: tr2,
            identity: id2,
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
    same("threads", threads.to_string(), t2.to_string())?;
    same("slot size", slot_size.to_string(), ss2.to_string())?;
    same("transport", transport.clone(), tr2.clone())?;
    identity.check_peer(r, id2)?;
    Ok(r)
}

fn join_root(
    env: &RankEnv,
    b: &Builder,
    kind: TransportKind,
    layout: Layout,
) -> Result<Joined, Error> {
    let addr = resolve(&env.coordinator)?;
    let deadline = Instant::now() + JOIN_TIMEOUT;
    let listener = loop {
        match TcpListener::bind(addr) {
            Ok(l) => break l,
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(50))
            }
            Err(e) => return Err(rack_err(format!("rank 0 could not listen on {addr}: {e}"))),
        }
    };
    let (data_listener, my_data) = data_listener(kind, addr.ip())?;
    let shm = if kind == TransportKind::Shm {
        let p = path_for(&env.job);
        Some(ShmRegion::create(&p, layout.shm_bytes(env.size)).map_err(rack_err)?)
    } else {
        None
    };
    let shm_path = shm
        .as_ref()
        .map(|_| path_for(&env.job).to_string_lossy().into_owned());
    let fail = |m: String, streams: &mut Vec<Option<TcpStream>>| {
        for s in streams.iter_mut().flatten() {
            let _ = wire::send(s, &Msg::Refused(m.clone()));
        }
        if let Some(p) = &shm_path {
            let _ = std::fs::remove_file(p);
        }
        rack_err(m)
    };
    let mine = hello(env, b, kind, my_data.clone());
    let mut streams: Vec<Option<TcpStream>> = (0..env.size).map(|_| None).collect();
    let mut joined = vec![false; env.size];
    joined[0] = true;
    let mut data_addrs = vec![String::new(); env.size];
    data_addrs[0] = my_data;
    listener
        .set_nonblocking(true)
        .map_err(|e| rack_err(e.to_string()))?;
    while joined.iter().any(|j| !j) {
        let (mut s, from) = match listener.accept() {
            Ok(x) => x,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() > deadline {
                    let missing: Vec<usize> = (0..env.size).filter(|&r| !joined[r]).collect();
                    return Err(fail(
                        format!(
                            "ranks {missing:?} did not join within {} s",
                            JOIN_TIMEOUT.as_secs()
                        ),
                        &mut streams,
                    ));
                }
                std::thread::sleep(Duration::from_millis(2));
                continue;
            }
            Err(e) => return Err(fail(format!("accepting ranks: {e}"), &mut streams)),
        };
        let _ = s.set_nonblocking(false);
        if let Err(e) = wire::check_auth(&mut s, &env.token) {
            eprintln!("gossamer: rank 0 refused a connection from {from}: {e}");
            continue;
        }
        let _ = s.set_read_timeout(Some(wire::AUTH_TIMEOUT));
        let h = match wire::recv(&mut s) {
            Ok(h) => h,
            Err(e) => {
                eprintln!("gossamer: rank 0 dropped a connection from {from}: no hello ({e})");
                continue;
            }
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
    })
}

fn data_listener(
    kind: TransportKind,
    ip: std::net::IpAddr,
) -> Result<(Option<TcpListener>, String), Error> {
    if kind != TransportKind::Tcp {
        return Ok((None, String::new()));
    }
    let l = TcpListener::bind((ip, 0))
        .map_err(|e| rack_err(format!("could not open a tcp data listener on {ip}: {e}")))?;
    let a = l.local_addr().map_err(|e| rack_err(e.to_string()))?;
    Ok((Some(l), a.to_string()))
}

fn join_leaf(env: &RankEnv, b: &Builder, kind: TransportKind) -> Result<Joined, Error> {
    let addr = resolve(&env.coordinator)?;
    let deadline = Instant::now() + JOIN_TIMEOUT;
    let mut s = loop {
        match TcpStream::connect(addr) {
            Ok(s) => break s,
            Err(e) if Instant::now() < deadline => {
                let _ = e;
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => {
                return Err(rack_err(format!(
                    "rank {} could not reach rank 0 at {addr} within {} s: {e}",
                    env.rank,
                    JOIN_TIMEOUT.as_secs()
                )))
            }
        }
    };
    let local_ip = s.local_addr().map_err(|e| rack_err(e.to_string()))?.ip();
    let (data_listener, my_data) = data_listener(kind, local_ip)?;
    wire::send_auth(&mut s, &env.token).map_err(|e| rack_err(e.to_string()))?;
    wire::send(&mut s, &hello(env, b, kind, my_data)).map_err(|e| rack_err(e.to_string()))?;
    let _ = s.set_read_timeout(Some(JOIN_TIMEOUT));
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
        }),
        Ok(Msg::Refused(m)) => Err(rack_err(format!("rank 0 refused to start: {m}"))),
        Ok(m) => Err(rack_err(format!("unexpected bootstrap message {m:?}"))),
        Err(e) => Err(rack_err(format!(
            "rank 0 closed the connection during bootstrap (wrong GOSSAMER_TOKEN, or rank 0 \
             refused the job): {e}"
        ))),
    }
}

/// Runs this rank of a rack job (see [`Builder::run`]).
pub(crate) fn run_rank<R: Send + 'static>(
    b: Builder,
    env: RankEnv,
    gsm_main: impl FnOnce() -> R + Send + 'static,
) -> Result<R, Error> {
    let kind = b.transport.unwrap_or(TransportKind::Shm);
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
    let t = b.threads;
    let n = t * env.size;
    let layout = Layout {
        t,
        n,
        size: b.slot_size,
    };
    let mut j = if env.rank == 0 {
        join_root(&env, &b, kind, layout)?
    } else {
        join_leaf(&env, &b, kind)?
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
                    ShmRegion::open(std::path::Path::new(&p), layout.shm_bytes(env.size))
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
                    Parking::shared(n, base as *const AtomicU32, region.clone()),
                )
            };
            let parking = Arc::new(parking);
            let alarm = Arc::new(Alarm::new(fate.clone(), parking.clone()));
            (Box::new(slots), parking, alarm)
        }
        #[cfg(feature = "rdma")]
        TransportKind::Rdma => {
            let setup = super::rdma::setup(layout, env.rank, env.size).map_err(rack_err)?;
            let infos = exchange_rdma(&mut j.ctl, env.size, t, setup.info())?;
            // Remote writers cannot wake a sleeping worker: nap briefly.
            let parking = Arc::new(Parking::local_with_nap(n, Duration::from_micros(50)));
            let alarm = Arc::new(Alarm::new(fate.clone(), parking.clone()));
            let slots = setup.connect(&infos, alarm.clone()).map_err(rack_err)?;
            (Box::new(slots), parking, alarm)
        }
        _ => {
            let rows = Arc::new(LocalRows::new(layout.region_bytes()));
            let parking = Arc::new(Parking::local(n));
            let alarm = Arc::new(Alarm::new(fate.clone(), parking.clone()));
            let listener = j
                .data_listener
                .take()
                .ok_or_else(|| rack_err("no data listener"))?;
            let links = tcp::connect(
                env.rank,
                &j.data_addrs,
                listener,
                &env.token,
                layout,
                rows.base(),
                rows.clone(),
                alarm.clone(),
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
                        other => {
                            if let Some(p) = &j.shm_path {
                                let _ = std::fs::remove_file(p);
                            }
                            return Err(rack_err(format!("rank {r} did not get ready: {other:?}")));
                        }
                    }
                }
            }
            if let Some(p) = &j.shm_path {
                let _ = std::fs::remove_file(p);
            }
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
        b.slot_size,
        transport,
        parking,
        fate,
    ));
    match j.ctl {
        Ctl::Root(streams) => root(b, env, shared, alarm, streams, gsm_main),
        Ctl::Leaf(s) => leaf(b, env, shared, alarm, s),
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

type Writer = Arc<Mutex<TcpStream>>;

fn send_to(w: &Writer, m: &Msg) -> std::io::Result<()> {
    wire::send(&mut *w.lock().unwrap_or_else(|p| p.into_inner()), m)
}

fn heartbeats(writers: Vec<Writer>, alarm: Arc<Alarm>) {
    let _ = std::thread::Builder::new()
        .name("gossamer-heartbeat".into())
        .spawn(move || loop {
            std::thread::sleep(HEARTBEAT);
            if alarm.closing.load(Ordering::SeqCst) {
                return;
            }
            for w in &writers {
                let _ = send_to(w, &Msg::Heartbeat);
            }
        });
}

fn leaf(b: Builder, env: RankEnv, shared: Arc<Shared>, alarm: Arc<Alarm>, s: TcpStream) -> ! {
    let reader = s.try_clone();
    let w: Writer = Arc::new(Mutex::new(s));
    heartbeats(vec![w.clone()], alarm.clone());
    if let Ok(mut r) = reader {
        let (shared, alarm, w) = (shared.clone(), alarm.clone(), w.clone());
        let _ = r.set_read_timeout(Some(SILENCE));
        let _ = std::thread::Builder::new()
            .name("gossamer-control".into())
            .spawn(move || loop {
                match wire::recv(&mut r) {
                    Ok(Msg::Heartbeat) => {}
                    Ok(Msg::Query(id)) => {
                        let _ = send_to(&w, &Msg::Quiescent(id, shared.quiescent()));
                    }
                    Ok(Msg::Stop) => {
                        alarm.closing.store(true, Ordering::SeqCst);
                        shared.stop.store(true, Ordering::SeqCst);
                        shared.wake_all();
                        return;
                    }
                    Ok(Msg::Abort { rank, cause }) => {
                        return alarm.fail(format!("gossamer: rank {rank} failed: {cause}"));
                    }
                    Ok(m) => {
                        return alarm.fail(format!(
                            "gossamer: rank 0 failed: unexpected control message {m:?}"
                        ))
                    }
                    Err(e) => {
                        return alarm.fail(format!(
                            "gossamer: rank 0 failed: lost the control connection to it ({e}); the \
                             process exited, was killed, or its host is unreachable"
                        ))
                    }
                }
            });
    }
    let handles = match b.start_workers(&shared, None) {
        Ok(h) => h,
        Err(e) => {
            let _ = send_to(&w, &Msg::Failed(e.to_string()));
            eprintln!("gossamer: rank {}: {e}", env.rank);
            std::process::exit(1);
        }
    };
    join_workers(&shared, handles);
    if let Some(m) = shared.poison_message() {
        let _ = send_to(&w, &Msg::Failed(m.clone()));
        eprintln!("gossamer: rank {} stopped: {m}", env.rank);
        std::process::exit(1);
    }
    let _ = send_to(&w, &Msg::Done);
    std::process::exit(0);
}

fn root<R: Send + 'static>(
    b: Builder,
    env: RankEnv,
    shared: Arc<Shared>,
    alarm: Arc<Alarm>,
    streams: Vec<Option<TcpStream>>,
    gsm_main: impl FnOnce() -> R + Send + 'static,
) -> Result<R, Error> {
    let size = env.size;
    let mut writers: Vec<Option<Writer>> = Vec::with_capacity(size);
    let done: Arc<Vec<AtomicBool>> = Arc::new((0..size).map(|_| AtomicBool::new(false)).collect());
    let (tx, rx) = mpsc::channel::<(usize, u64, Option<u64>)>();
    let all_writers: Arc<Mutex<Vec<Writer>>> = Arc::new(Mutex::new(Vec::new()));
    for (r, s) in streams.into_iter().enumerate() {
        let Some(s) = s else {
            writers.push(None);
            continue;
        };
        let mut rd = s.try_clone().map_err(|e| rack_err(e.to_string()))?;
        let w: Writer = Arc::new(Mutex::new(s));
        writers.push(Some(w.clone()));
        all_writers.lock().unwrap().push(w);
        let (alarm, done, tx, all) = (alarm.clone(), done.clone(), tx.clone(), all_writers.clone());
        let _ = rd.set_read_timeout(Some(SILENCE));
        let _ = std::thread::Builder::new()
            .name(format!("gossamer-control{r}"))
            .spawn(move || {
                let cause = loop {
                    match wire::recv(&mut rd) {
                        Ok(Msg::Heartbeat) => {}
                        Ok(Msg::Quiescent(id, q)) => {
                            let _ = tx.send((r, id, q));
                        }
                        Ok(Msg::Done) => {
                            done[r].store(true, Ordering::SeqCst);
                            return;
                        }
                        Ok(Msg::Failed(m)) => break m,
                        Ok(m) => break format!("sent an unexpected control message {m:?}"),
                        Err(e) => {
                            if alarm.closing.load(Ordering::SeqCst) && done[r].load(Ordering::SeqCst) {
                                return;
                            }
                            break format!(
                                "lost its control connection ({e}): the process exited, was killed, \
                                 or its host is unreachable"
                            );
                        }
                    }
                };
                if alarm.closing.load(Ordering::SeqCst) {
                    return;
                }
                let abort = Msg::Abort { rank: r as u32, cause: cause.clone() };
                for w in all.lock().unwrap_or_else(|p| p.into_inner()).iter() {
                    let _ = send_to(w, &abort);
                }
                alarm.fail(format!("gossamer: rank {r} failed: {cause}"));
            });
    }
    drop(tx);
    heartbeats(writers.iter().flatten().cloned().collect(), alarm.clone());

    let (body, result) = main_body(&shared, gsm_main);
    let handles = b.start_workers(&shared, Some(body))?;

    // Termination detection (see the module docs).
    let mut query = 0u64;
    let round = |query: &mut u64| -> Option<Vec<u64>> {
        *query += 1;
        for w in writers.iter().flatten() {
            let _ = send_to(w, &Msg::Query(*query));
        }
        let mut snap: Vec<Option<Option<u64>>> = vec![None; size];
        snap[0] = Some(shared.quiescent());
        let deadline = Instant::now() + Duration::from_secs(2);
        while snap.iter().skip(1).any(|s| s.is_none()) {
            let left = deadline.checked_duration_since(Instant::now())?;
            match rx.recv_timeout(left) {
                Ok((r, id, q)) if id == *query => snap[r] = Some(q),
                Ok(_) => {}
                Err(_) => return None,
            }
        }
        snap.into_iter()
            .map(|s| s.flatten())
            .collect::<Option<Vec<u64>>>()
    };
    loop {
        if shared.fate.failed() {
            break;
        }
        if shared.main_done.load(Ordering::SeqCst) && shared.quiescent().is_some() {
            if let Some(a) = round(&mut query) {
                if let Some(b2) = round(&mut query) {
                    if a == b2 {
                        alarm.closing.store(true, Ordering::SeqCst);
                        for w in writers.iter().flatten() {
                            let _ = send_to(w, &Msg::Stop);
                        }
                        shared.stop.store(true, Ordering::SeqCst);
                        shared.wake_all();
                        break;
                    }
                }
            }
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    join_workers(&shared, handles);
    if let Some(m) = shared.poison_message() {
        // A failure here (not reported by a peer): tell everyone.
        let abort = Msg::Abort {
            rank: 0,
            cause: m.clone(),
        };
        for w in writers.iter().flatten() {
            let _ = send_to(w, &abort);
        }
        return finish(&shared, &result);
    }
    // Wait (bounded) for every rank to finish cleanly.
    let deadline = Instant::now() + Duration::from_secs(10);
    while (1..size).any(|r| !done[r].load(Ordering::SeqCst)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    finish(&shared, &result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(rank: u32, threads: u32, transport: &str, anchor: u64) -> Msg {
        Msg::Hello {
            rank,
            size: 4,
            threads,
            slot_size: 1024,
            transport: transport.into(),
            identity: Identity {
                build_id: vec![1],
                anchor,
            },
            data_addr: String::new(),
            pid: 1,
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
    }
}
