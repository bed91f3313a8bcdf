//! RDMA transport building blocks (cargo feature `rdma`): RC queue pairs over
//! ibverbs, one per (local thread, remote machine) as in §4.8, writing the used part
//! of a slot with RDMA WRITE (unsignaled, with a signaled write every
//! [`Config::rdma_signal_every`](crate::Config::rdma_signal_every) (default
//! [`SIGNAL_EVERY`]) to reap the send queue).
//!
//! Layout: each rank registers its slot rows (as in `slots`) for remote writes and a
//! *staging* area of the same geometry (`[dir][local writer][owner]`, the client-side
//! square of §4.7) as the source of its writes. A write to another rank places the
//! batch into the staging slot of that (writer, owner) pair exactly as it must land
//! (records end-aligned, header, ready word last) and posts one RDMA WRITE of the
//! used tail, header and ready word to the owner's row (the ready word is the last
//! byte range of the write, §4.6). The staging slot is written again only after the
//! owner answered, so the previous write has landed.
//!
//! One concept in one file, longer than most: the whole rdma transport (the
//! connection-info formats, queue pairs, writing, the FFI to the verbs shim), so
//! that a newcomer finds each transport in one place.
//!
//! Status: builds; the pure parts (connection-info formats, queue-pair parameter
//! choice, signaling policy, slot addresses) are tested without a device. The
//! transport has not run on RDMA hardware (none here). All unsafe code of the
//! module is the FFI to `csrc/verbs_shim.c` and the slot memory it hands to it.

use super::layout::{place, Layout};
use super::slots::LocalRows;
use super::Alarm;
use crate::slot::{data_capacity, Header};
use crate::transport::{Body, Dir, SlotView, Transport};
use std::os::raw::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A signaled write every this many writes per queue pair, by default (the run's
/// own is [`Config::rdma_signal_every`](crate::Config::rdma_signal_every)).
pub const SIGNAL_EVERY: u64 = crate::Config::DEFAULT.rdma_signal_every;

/// What a queue pair's peer needs to connect to it and write into our slot rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnInfo {
    /// Port LID (InfiniBand; 0 on RoCE).
    pub lid: u16,
    /// Queue pair number.
    pub qpn: u32,
    /// Initial packet sequence number.
    pub psn: u32,
    /// Port GID (RoCE routing; zero on plain InfiniBand).
    pub gid: [u8; 16],
    /// Address of the slot rows (registered memory) on that rank.
    pub addr: u64,
    /// Remote key of that memory region.
    pub rkey: u32,
}

impl ConnInfo {
    /// Bytes of the wire form.
    pub const BYTES: usize = 2 + 4 + 4 + 16 + 8 + 4;

    /// Little-endian wire form (exchanged through rank 0 at bootstrap).
    pub fn to_bytes(&self) -> [u8; Self::BYTES] {
        let mut b = [0u8; Self::BYTES];
        b[0..2].copy_from_slice(&self.lid.to_le_bytes());
        b[2..6].copy_from_slice(&self.qpn.to_le_bytes());
        b[6..10].copy_from_slice(&self.psn.to_le_bytes());
        b[10..26].copy_from_slice(&self.gid);
        b[26..34].copy_from_slice(&self.addr.to_le_bytes());
        b[34..38].copy_from_slice(&self.rkey.to_le_bytes());
        b
    }

    /// Parses the wire form.
    pub fn from_bytes(b: &[u8]) -> Result<ConnInfo, String> {
        if b.len() != Self::BYTES {
            return Err(format!(
                "rdma connection info has {} bytes, expected {}",
                b.len(),
                Self::BYTES
            ));
        }
        Ok(ConnInfo {
            lid: u16::from_le_bytes([b[0], b[1]]),
            qpn: u32::from_le_bytes(b[2..6].try_into().unwrap()),
            psn: u32::from_le_bytes(b[6..10].try_into().unwrap()) & 0xff_ffff,
            gid: b[10..26].try_into().unwrap(),
            addr: u64::from_le_bytes(b[26..34].try_into().unwrap()),
            rkey: u32::from_le_bytes(b[34..38].try_into().unwrap()),
        })
    }

    /// RoCE needs a global route header (GRH): the GID is set and the LID is 0.
    pub fn needs_grh(&self) -> bool {
        self.lid == 0 || self.gid.iter().any(|&x| x != 0)
    }
}

/// Ready-to-receive parameters for a queue pair connected to `remote`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtrParams {
    /// Path MTU (ibverbs enum value, 1 = 256 B .. 5 = 4096 B).
    pub mtu: i32,
    pub dest_qpn: u32,
    pub rq_psn: u32,
    pub dlid: u16,
    pub use_grh: bool,
}

/// Chooses ready-to-receive parameters: the smaller of both ports' active MTUs,
/// the remote's QP number and PSN, GRH for RoCE.
pub fn rtr_params(local_mtu: i32, remote_mtu: i32, remote: &ConnInfo) -> RtrParams {
    RtrParams {
        mtu: local_mtu.min(remote_mtu).clamp(1, 5),
        dest_qpn: remote.qpn,
        rq_psn: remote.psn,
        dlid: remote.lid,
        use_grh: remote.needs_grh(),
    }
}

/// Whether write number `k` (0-based) on a queue pair is signaled, with one in
/// `every` signaled.
pub fn signaled(k: u64, every: u64) -> bool {
    k % every == every - 1
}

/// Remote address of the slot of `owner_local` written by `writer` in a rank's rows
/// registered at `rows_addr` (same layout as shm/tcp, see `slots`).
pub fn remote_slot_addr(
    rows_addr: u64,
    threads: usize,
    workers: usize,
    slot: usize,
    response: bool,
    owner_local: usize,
    writer: usize,
) -> u64 {
    let d = response as usize;
    rows_addr + (((d * threads + owner_local) * workers + writer) * slot) as u64
}

// The shim in `csrc/verbs_shim.c`. Calling any of these is unsafe; what each
// call needs from its caller:
// - `gsm_open`: `name` a NUL-terminated string (empty: the first device). Returns
//   a device handle that is never freed (a static table), or NULL.
// - `gsm_port_info`: `d` from `gsm_open`; `lid`, `mtu` writable, `gid` 16
//   writable bytes.
// - `gsm_reg`: `d` from `gsm_open`; `addr..addr + len` memory that stays allocated
//   for as long as the NIC may read or write it (the registration is never
//   dropped); `lkey`, `rkey` writable. Returns NULL on failure.
// - `gsm_cq`, `gsm_qp`: `d` (and `cq`) live handles from this shim; `qpn` writable.
// - `gsm_qp_init`, `gsm_qp_rtr`, `gsm_qp_rts`: `qp` a live queue pair; `gid` 16
//   readable bytes.
// - `gsm_write`: `qp` a live, connected queue pair used by one thread at a time;
//   `laddr..laddr + len` inside memory registered with `lkey` that is not written
//   until the write has been read by the NIC; `raddr..raddr + len` inside the
//   peer's region registered with `rkey` (the NIC checks this remotely).
// - `gsm_poll`: `cq` a live completion queue polled by one thread at a time;
//   `bad_status` writable.
extern "C" {
    fn gsm_open(name: *const c_char, port: u8, found: *mut c_int, err: *mut c_int) -> *mut c_void;
    fn gsm_port_info(
        d: *mut c_void,
        gid_index: c_int,
        lid: *mut u16,
        gid: *mut u8,
        mtu: *mut c_int,
    ) -> c_int;
    fn gsm_reg(
        d: *mut c_void,
        addr: *mut c_void,
        len: usize,
        lkey: *mut u32,
        rkey: *mut u32,
    ) -> *mut c_void;
    fn gsm_cq(d: *mut c_void, depth: c_int) -> *mut c_void;
    fn gsm_qp(
        d: *mut c_void,
        cq: *mut c_void,
        depth: u32,
        inline_bytes: u32,
        qpn: *mut u32,
    ) -> *mut c_void;
    fn gsm_qp_init(qp: *mut c_void, port: u8) -> c_int;
    #[allow(clippy::too_many_arguments)]
    fn gsm_qp_rtr(
        qp: *mut c_void,
        port: u8,
        mtu: c_int,
        dest_qpn: u32,
        rq_psn: u32,
        dlid: u16,
        gid: *const u8,
        gid_index: c_int,
        use_grh: c_int,
    ) -> c_int;
    fn gsm_qp_rts(qp: *mut c_void, sq_psn: u32) -> c_int;
    #[allow(clippy::too_many_arguments)]
    fn gsm_write(
        qp: *mut c_void,
        wr_id: u64,
        laddr: *const c_void,
        len: u32,
        lkey: u32,
        raddr: u64,
        rkey: u32,
        signaled: c_int,
    ) -> c_int;
    fn gsm_poll(cq: *mut c_void, max: c_int, bad_status: *mut c_int) -> c_int;
}

/// Opens the first RDMA device (or the one named), or explains why not.
pub fn open_device(name: &str, port: u8) -> Result<(), String> {
    open(name, port).map(|_| ())
}

fn open(name: &str, port: u8) -> Result<*mut c_void, String> {
    let c = std::ffi::CString::new(name)
        .map_err(|_| format!("GOSSAMER_RDMA_DEVICE {name:?} contains a NUL byte"))?;
    let (mut found, mut err) = (0 as c_int, 0 as c_int);
    // SAFETY: `c` is a valid NUL-terminated string for the call and the two
    // out-pointers are valid locals; the shim returns NULL (and fills them) when it
    // cannot open the device.
    let d = unsafe { gsm_open(c.as_ptr(), port, &mut found, &mut err) };
    if d.is_null() {
        Err(open_error(name, found, err))
    } else {
        Ok(d)
    }
}

/// Why opening the RDMA device failed: `found` devices were listed (-1 when listing
/// itself failed) and `err` is the errno of the failed step (0 when no device had
/// the requested name).
fn open_error(name: &str, found: i32, err: i32) -> String {
    let what = if name.is_empty() {
        "the first RDMA device".to_string()
    } else {
        format!("RDMA device {name}")
    };
    let errno = std::io::Error::from_raw_os_error(err);
    let why = match (found, err) {
        (-1, libc::ENOSYS) => format!(
            "ibv_get_device_list failed ({errno}): this kernel offers no RDMA \
             (no /sys/class/infiniband_verbs; is ib_uverbs loaded?)"
        ),
        (-1, _) => format!("ibv_get_device_list failed ({errno})"),
        (0, _) => "ibv_get_device_list found no RDMA device (see ibv_devices)".to_string(),
        (n, 0) => format!(
            "no device has that name ({n} listed, see ibv_devices; set GOSSAMER_RDMA_DEVICE)"
        ),
        (_, _) => format!("ibv_open_device/ibv_alloc_pd failed ({errno})"),
    };
    format!("cannot open {what}: {why}; use --transport tcp without RDMA")
}

/// Device settings from the environment: `GOSSAMER_RDMA_DEVICE` (default: the
/// first), `GOSSAMER_RDMA_PORT` (1 to 255, default 1), `GOSSAMER_RDMA_GID` (GID
/// index for RoCE, 0 to 255, default 0; -1 for none on InfiniBand). A value out
/// of range is refused with the variable's name.
fn settings() -> Result<(String, u8, i32), String> {
    settings_from(&|k| std::env::var(k).ok())
}

/// [`settings`] read through `var`.
fn settings_from(var: &dyn Fn(&str) -> Option<String>) -> Result<(String, u8, i32), String> {
    let dev = var("GOSSAMER_RDMA_DEVICE").unwrap_or_default();
    let port = match var("GOSSAMER_RDMA_PORT") {
        Some(v) => v.trim().parse::<u8>().ok().filter(|&p| p >= 1).ok_or_else(|| {
            format!("GOSSAMER_RDMA_PORT={v:?}: expected the device's port number, 1 to 255 (see ibv_devinfo)")
        })?,
        None => 1,
    };
    let gid = match var("GOSSAMER_RDMA_GID") {
        Some(v) => v
            .trim()
            .parse::<i32>()
            .ok()
            .filter(|g| (-1..=255).contains(g))
            .ok_or_else(|| {
                format!("GOSSAMER_RDMA_GID={v:?}: expected a GID index from 0 to 255 (RoCE), or -1 for none (InfiniBand)")
            })?,
        None => 0,
    };
    Ok((dev, port, gid))
}

/// A rank's connection info: its rows and one queue pair per (local thread,
/// remote rank).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalInfo {
    /// Port and rows (the `qpn` field of `conn` is unused here).
    pub conn: ConnInfo,
    /// Active MTU of the port (ibverbs enum value).
    pub mtu: i32,
    /// `qpns[i * ranks + j]`: this rank's queue pair of thread `i` toward rank `j`.
    pub qpns: Vec<u32>,
}

impl LocalInfo {
    /// Wire form: `ConnInfo`, `mtu: i32`, `count: u32`, then `count` QP numbers.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = self.conn.to_bytes().to_vec();
        b.extend_from_slice(&self.mtu.to_le_bytes());
        b.extend_from_slice(&(self.qpns.len() as u32).to_le_bytes());
        for q in &self.qpns {
            b.extend_from_slice(&q.to_le_bytes());
        }
        b
    }

    /// Parses the wire form, expecting `qpns` queue pairs.
    pub fn from_bytes(b: &[u8], qpns: usize) -> Result<LocalInfo, String> {
        let c = ConnInfo::BYTES;
        if b.len() != c + 8 + 4 * qpns {
            return Err(format!(
                "rdma rank info has {} bytes, expected {} for {qpns} queue pairs",
                b.len(),
                c + 8 + 4 * qpns
            ));
        }
        let conn = ConnInfo::from_bytes(&b[..c])?;
        let mtu = i32::from_le_bytes(b[c..c + 4].try_into().unwrap());
        let count = u32::from_le_bytes(b[c + 4..c + 8].try_into().unwrap()) as usize;
        if count != qpns {
            return Err(format!(
                "rdma rank info lists {count} queue pairs, expected {qpns}"
            ));
        }
        let qpns = b[c + 8..]
            .chunks_exact(4)
            .map(|x| u32::from_le_bytes(x.try_into().unwrap()))
            .collect();
        Ok(LocalInfo { conn, mtu, qpns })
    }
}

/// Verbs objects and memory of this rank before the queue pairs are connected.
pub(crate) struct Setup {
    layout: Layout,
    rank: usize,
    ranks: usize,
    port: u8,
    gid_index: i32,
    rows: Arc<LocalRows>,
    staging: Arc<LocalRows>,
    lkey: u32,
    cqs: Vec<*mut c_void>,
    qps: Vec<*mut c_void>,
    info: LocalInfo,
    signal_every: u64,
}

/// Opens the device, registers rows and staging memory, and creates the completion
/// queues and queue pairs.
pub(crate) fn setup(
    layout: Layout,
    rank: usize,
    ranks: usize,
    signal_every: u64,
) -> Result<Setup, String> {
    let (name, port, gid_index) = settings()?;
    let dev = open(&name, port)?;
    let rows = Arc::new(LocalRows::new(layout.region_bytes()));
    let staging = Arc::new(LocalRows::new(layout.region_bytes()));
    let (mut lid, mut mtu, mut gid) = (0u16, 0 as c_int, [0u8; 16]);
    // SAFETY: `dev` is an open device; the out-pointers are valid locals.
    if unsafe { gsm_port_info(dev, gid_index, &mut lid, gid.as_mut_ptr(), &mut mtu) } != 0 {
        return Err(format!(
            "could not query RDMA port {port} / GID index {gid_index}"
        ));
    }
    let (mut lkey, mut rkey, mut skey, mut unused) = (0u32, 0u32, 0u32, 0u32);
    let bytes = layout.region_bytes();
    // SAFETY: both areas are `bytes` long and live for the run (kept by the Setup
    // and then by the transport).
    let (mr_rows, mr_stage) = unsafe {
        (
            gsm_reg(dev, rows.base() as *mut c_void, bytes, &mut lkey, &mut rkey),
            gsm_reg(
                dev,
                staging.base() as *mut c_void,
                bytes,
                &mut skey,
                &mut unused,
            ),
        )
    };
    if mr_rows.is_null() || mr_stage.is_null() {
        return Err(
            "ibv_reg_mr failed: raise the locked-memory limit (ulimit -l unlimited)".into(),
        );
    }
    let depth = 2 * signal_every as u32;
    let mut cqs = Vec::with_capacity(layout.t);
    let mut qps = vec![std::ptr::null_mut(); layout.t * ranks];
    let mut qpns = vec![0u32; layout.t * ranks];
    for i in 0..layout.t {
        // SAFETY: `dev` is open; the CQ lives for the run.
        let cq = unsafe { gsm_cq(dev, (depth as usize * ranks) as c_int) };
        if cq.is_null() {
            return Err("ibv_create_cq failed".into());
        }
        cqs.push(cq);
        for j in (0..ranks).filter(|&j| j != rank) {
            // SAFETY: `dev` and `cq` are live; the QP number slot is a valid pointer.
            let qp = unsafe { gsm_qp(dev, cq, depth, 0, &mut qpns[i * ranks + j]) };
            if qp.is_null() {
                return Err("ibv_create_qp failed".into());
            }
            qps[i * ranks + j] = qp;
        }
    }
    let psn = (std::process::id() ^ (rank as u32).wrapping_mul(0x9e37)) & 0xff_ffff;
    let info = LocalInfo {
        conn: ConnInfo {
            lid,
            qpn: 0,
            psn,
            gid: if gid_index >= 0 { gid } else { [0; 16] },
            addr: rows.base() as u64,
            rkey,
        },
        mtu,
        qpns,
    };
    Ok(Setup {
        layout,
        rank,
        ranks,
        port,
        gid_index,
        rows,
        staging,
        lkey: skey,
        cqs,
        qps,
        info,
        signal_every,
    })
}

impl Setup {
    /// This rank's info for the exchange through rank 0.
    pub(crate) fn info(&self) -> &LocalInfo {
        &self.info
    }

    /// Connects every queue pair to its peer (thread `i` of this rank with thread
    /// `i` of the other rank) and returns the transport.
    pub(crate) fn connect(
        self,
        infos: &[LocalInfo],
        alarm: Arc<Alarm>,
    ) -> Result<RdmaSlots, String> {
        let (t, r, n) = (self.layout.t, self.ranks, self.rank);
        for i in 0..t {
            for (j, peer) in infos.iter().enumerate().filter(|&(j, _)| j != n) {
                let qp = self.qps[i * r + j];
                let mut remote = peer.conn;
                remote.qpn = peer.qpns[i * r + n];
                let p = rtr_params(self.info.mtu, peer.mtu, &remote);
                // SAFETY: `qp` is a live queue pair; the GID buffer is 16 bytes.
                let rc = unsafe {
                    let mut rc = gsm_qp_init(qp, self.port);
                    if rc == 0 {
                        rc = gsm_qp_rtr(
                            qp,
                            self.port,
                            p.mtu,
                            p.dest_qpn,
                            p.rq_psn,
                            p.dlid,
                            remote.gid.as_ptr(),
                            self.gid_index.max(0),
                            p.use_grh as c_int,
                        );
                    }
                    if rc == 0 {
                        rc = gsm_qp_rts(qp, self.info.conn.psn);
                    }
                    rc
                };
                if rc != 0 {
                    return Err(format!(
                        "could not connect the queue pair of thread {i} to rank {j} (ibv_modify_qp: {rc})"
                    ));
                }
            }
        }
        Ok(RdmaSlots {
            layout: self.layout,
            rank: n,
            ranks: r,
            remote: infos.iter().map(|x| (x.conn.addr, x.conn.rkey)).collect(),
            counts: (0..t * r).map(|_| AtomicU64::new(0)).collect(),
            signal_every: self.signal_every,
            rows: self.rows,
            staging: self.staging,
            lkey: self.lkey,
            cqs: self.cqs,
            qps: self.qps,
            alarm,
        })
    }
}

/// The RDMA transport (see the module docs).
pub(crate) struct RdmaSlots {
    layout: Layout,
    rank: usize,
    ranks: usize,
    /// Rows address and rkey of every rank.
    remote: Vec<(u64, u32)>,
    /// Writes posted per (local thread, remote rank) queue pair.
    counts: Vec<AtomicU64>,
    /// One write in this many per queue pair is signaled.
    signal_every: u64,
    rows: Arc<LocalRows>,
    staging: Arc<LocalRows>,
    lkey: u32,
    cqs: Vec<*mut c_void>,
    qps: Vec<*mut c_void>,
    alarm: Arc<Alarm>,
}

// SAFETY: each queue pair and completion queue is used only by the worker thread it
// belongs to (`from`'s local index); slot memory follows the slot protocol.
unsafe impl Send for RdmaSlots {}
// SAFETY: as above: shared use goes through `&self` methods called by the worker
// threads, each touching only its own queue pairs, completion queue and staging
// slots; the remaining fields are read-only after `connect` (or atomic).
unsafe impl Sync for RdmaSlots {}

impl Transport for RdmaSlots {
    fn write(&self, dir: Dir, from: usize, to: usize, body: Body, header: &Header, seq: u64) {
        let l = self.layout;
        let (to_rank, owner) = (to / l.t, to % l.t);
        if to_rank == self.rank {
            let slot = l.offset(dir, owner, from);
            // SAFETY: our rows hold this slot; it is free (slot protocol).
            return unsafe { place(self.rows.base().add(slot), l.size, body, header, seq) };
        }
        let me = from - self.rank * l.t;
        let start = data_capacity(l.size) - body.len;
        // SAFETY: `offset(dir, me, to)` is a slot offset inside our staging area,
        // which has the rows' geometry (`[dir][local writer][owner]`).
        let stage = unsafe { self.staging.base().add(l.offset(dir, me, to)) };
        // SAFETY: the staging slot of (dir, me, to) is ours and free: only this
        // thread writes it, and its previous RDMA WRITE was read by the NIC before
        // it landed at the owner, which had to see it before answering, and we
        // write a pair again only after its answer (slot protocol).
        unsafe { place(stage, l.size, body, header, seq) };
        let (addr, rkey) = self.remote[to_rank];
        let raddr = addr + (l.offset(dir, owner, from) + start) as u64;
        let q = me * self.ranks + to_rank;
        let k = self.counts[q].fetch_add(1, Ordering::Relaxed);
        let sig = signaled(k, self.signal_every);
        // SAFETY: the queue pair `q` belongs to this thread (`me`), so no other
        // thread posts on it; the source `stage + start .. stage + size` is the
        // used tail of a staging slot, inside the area registered with `lkey`, and
        // it is not written again until this write has landed (see above); the
        // target is the same range of the owner's slot in the peer's rows,
        // registered with `rkey` (same layout on every rank).
        let rc = unsafe {
            gsm_write(
                self.qps[q],
                k,
                stage.add(start) as *const c_void,
                (l.size - start) as u32,
                self.lkey,
                raddr,
                rkey,
                sig as c_int,
            )
        };
        if rc != 0 {
            return self.alarm.fail(format!(
                "gossamer: rank {to_rank} failed: RDMA write from rank {} refused (ibv_post_send: {rc})",
                self.rank
            ));
        }
        if sig {
            // Reap the signaled completion so the send queue never overflows.
            let mut status = 0;
            loop {
                // SAFETY: the completion queue belongs to this thread.
                let got = unsafe { gsm_poll(self.cqs[me], 1, &mut status) };
                if got > 0 {
                    break;
                }
                if got < 0 {
                    return self.alarm.fail(format!(
                        "gossamer: rank {to_rank} failed: an RDMA write from rank {} completed with status {status}",
                        self.rank
                    ));
                }
                if self.alarm.fate.failed() {
                    return;
                }
                std::hint::spin_loop();
            }
        }
    }

    fn poll(&self, dir: Dir, me: usize, peer: usize, seen: u64) -> Option<(u64, SlotView)> {
        let l = self.layout;
        // SAFETY: our own rows; the offset lies inside them.
        let slot = unsafe { self.rows.base().add(l.offset(dir, me % l.t, peer)) };
        // SAFETY: a live slot of `size` bytes.
        let seq = unsafe { super::layout::ready(slot, l.size) }.load(Ordering::Acquire);
        (seq != seen).then_some((
            seq,
            SlotView {
                base: slot,
                size: l.size,
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_settings_are_checked_by_name() {
        let with = |pairs: &[(&str, &str)]| {
            let pairs: Vec<(String, String)> = pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            settings_from(&move |k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()))
        };
        assert_eq!(with(&[]).unwrap(), (String::new(), 1, 0));
        assert_eq!(
            with(&[("GOSSAMER_RDMA_PORT", "2"), ("GOSSAMER_RDMA_GID", "-1")]).unwrap(),
            (String::new(), 2, -1)
        );
        for (k, v) in [
            ("GOSSAMER_RDMA_PORT", "0"),
            ("GOSSAMER_RDMA_PORT", "256"),
            ("GOSSAMER_RDMA_PORT", "one"),
            ("GOSSAMER_RDMA_GID", "-2"),
            ("GOSSAMER_RDMA_GID", "300"),
        ] {
            let e = with(&[(k, v)]).unwrap_err();
            assert!(e.starts_with(&format!("{k}={v:?}: expected")), "{e}");
        }
    }

    #[test]
    fn conn_info_round_trips_and_rejects_bad_lengths() {
        let c = ConnInfo {
            lid: 7,
            qpn: 0x1234,
            psn: 0xabcdef,
            gid: [3; 16],
            addr: 0x7fff_0000_1000,
            rkey: 99,
        };
        assert_eq!(ConnInfo::from_bytes(&c.to_bytes()).unwrap(), c);
        assert!(ConnInfo::from_bytes(&[0; 5])
            .unwrap_err()
            .contains("expected 38"));
    }

    #[test]
    fn rtr_uses_the_smaller_mtu_and_grh_on_roce() {
        let ib = ConnInfo {
            lid: 4,
            qpn: 10,
            psn: 20,
            gid: [0; 16],
            addr: 0,
            rkey: 0,
        };
        let p = rtr_params(5, 3, &ib);
        assert_eq!(
            p,
            RtrParams {
                mtu: 3,
                dest_qpn: 10,
                rq_psn: 20,
                dlid: 4,
                use_grh: false
            }
        );
        let roce = ConnInfo {
            lid: 0,
            gid: [1; 16],
            ..ib
        };
        assert!(rtr_params(5, 5, &roce).use_grh);
    }

    #[test]
    fn one_write_in_signal_every_is_signaled() {
        let n = (0..10 * SIGNAL_EVERY)
            .filter(|&k| signaled(k, SIGNAL_EVERY))
            .count() as u64;
        assert_eq!(n, 10);
        assert!(!signaled(0, SIGNAL_EVERY));
        assert!(signaled(3, 4) && !signaled(4, 4));
    }

    #[test]
    fn remote_slot_addresses_match_the_row_layout() {
        // 2 threads per rank, 6 workers, 256-byte slots
        assert_eq!(remote_slot_addr(1000, 2, 6, 256, false, 0, 0), 1000);
        assert_eq!(
            remote_slot_addr(1000, 2, 6, 256, false, 1, 5),
            1000 + (6 + 5) * 256
        );
        assert_eq!(
            remote_slot_addr(1000, 2, 6, 256, true, 0, 0),
            1000 + 12 * 256
        );
    }

    #[test]
    fn rank_info_round_trips_and_checks_the_queue_pair_count() {
        let li = LocalInfo {
            conn: ConnInfo {
                lid: 1,
                qpn: 0,
                psn: 5,
                gid: [9; 16],
                addr: 4096,
                rkey: 77,
            },
            mtu: 3,
            qpns: vec![0, 11, 12, 0, 21, 22],
        };
        assert_eq!(LocalInfo::from_bytes(&li.to_bytes(), 6).unwrap(), li);
        assert!(LocalInfo::from_bytes(&li.to_bytes(), 4)
            .unwrap_err()
            .contains("expected"));
    }

    #[test]
    fn open_errors_say_what_failed_and_what_to_do() {
        let e = open_error("", -1, libc::ENOSYS);
        assert!(e.contains("first RDMA device"), "{e}");
        assert!(e.contains("no RDMA"), "{e}");
        assert!(e.ends_with("use --transport tcp without RDMA"), "{e}");
        let e = open_error("", 0, 0);
        assert!(e.contains("found no RDMA device"), "{e}");
        let e = open_error("mlx5_1", 2, 0);
        assert!(e.contains("RDMA device mlx5_1"), "{e}");
        assert!(e.contains("2 listed"), "{e}");
        let e = open_error("mlx5_0", 1, libc::EACCES);
        assert!(e.contains("ibv_open_device/ibv_alloc_pd failed"), "{e}");
        assert!(e.contains("ermission denied"), "{e}");
    }

    #[test]
    fn a_device_name_with_a_nul_byte_is_a_clear_error() {
        let e = open_device("mlx5\0x", 1).unwrap_err();
        assert!(e.contains("NUL"), "{e}");
    }

    #[test]
    fn no_device_here_is_a_clear_error() {
        match open_device("", 1) {
            Ok(()) => eprintln!(
                "skipped no_device_here_is_a_clear_error: it needs a machine without an RDMA device, this one has one"
            ),
            Err(e) => {
                eprintln!("no RDMA device here: {e}");
                assert!(e.starts_with("cannot open the first RDMA device: "), "{e}");
                assert!(e.contains("--transport tcp"), "{e}");
            }
        }
    }
}
