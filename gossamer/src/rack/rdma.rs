//! RDMA transport building blocks (cargo feature `rdma`): RC queue pairs over
//! ibverbs, one per (local thread, remote machine) as in §4.8, writing the used part
//! of a slot with RDMA WRITE (unsignaled, with a signaled write every
//! [`SIGNAL_EVERY`] to reap the send queue).
//!
//! Status: the verbs calls (through `csrc/verbs_shim.c`), connection-info exchange
//! format, queue-pair attribute choices and signaling policy are here and tested
//! without a device; the runtime does not select this transport yet (see
//! docs/rack.md). All unsafe code of the module is the FFI declarations.

use std::os::raw::{c_char, c_int, c_void};

/// A signaled write every this many writes per queue pair.
pub const SIGNAL_EVERY: u64 = 64;

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

/// Whether write number `k` (0-based) on a queue pair is signaled.
pub fn signaled(k: u64) -> bool {
    k % SIGNAL_EVERY == SIGNAL_EVERY - 1
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

#[allow(dead_code)]
extern "C" {
    fn gsm_open(name: *const c_char, port: u8) -> *mut c_void;
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
    let c = std::ffi::CString::new(name).map_err(|e| e.to_string())?;
    // SAFETY: `c` is a valid NUL-terminated string for the call; the shim returns
    // NULL when there is no such device.
    let d = unsafe { gsm_open(c.as_ptr(), port) };
    if d.is_null() {
        Err(format!(
            "no RDMA device{} (ibv_get_device_list found none usable); use --transport tcp",
            if name.is_empty() {
                String::new()
            } else {
                format!(" named {name}")
            }
        ))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let n = (0..10 * SIGNAL_EVERY).filter(|&k| signaled(k)).count() as u64;
        assert_eq!(n, 10);
        assert!(!signaled(0));
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
    fn no_device_here_is_a_clear_error() {
        if let Err(e) = open_device("", 1) {
            assert!(e.contains("tcp"), "{e}");
        }
    }
}
