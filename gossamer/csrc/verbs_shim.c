/* Thin, non-inline wrappers over libibverbs for gossamer's rdma transport.
 * ibv_post_send and ibv_poll_cq are static inline in <infiniband/verbs.h> (they go
 * through the context's ops table), and the work-request structs have unions and
 * layout that differ between rdma-core releases: compiling this file against the
 * system header gets both right without bindgen. Rust sees only opaque pointers and
 * scalars. Why not the `ibverbs` crate: docs/rack.md, "The rdma transport and its
 * build". */
#include <infiniband/verbs.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

struct gsm_dev {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    uint8_t port;
};

/* Opens the device named `name` (the first one when empty) and allocates its
 * protection domain. On failure returns NULL with *found = the number of devices
 * listed (-1 when ibv_get_device_list itself failed) and *err = the errno of the
 * step that failed (0 when no device matched). The handle lives for the process. */
struct gsm_dev *gsm_open(const char *name, uint8_t port, int *found, int *err) {
    int n = 0;
    *found = -1;
    *err = 0;
    errno = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (!list) { *err = errno; return NULL; }
    *found = n;
    struct ibv_device *dev = NULL;
    for (int i = 0; i < n; i++)
        if (!name || !name[0] || strcmp(ibv_get_device_name(list[i]), name) == 0) { dev = list[i]; break; }
    struct gsm_dev *d = NULL;
    if (dev) {
        errno = 0;
        struct ibv_context *ctx = ibv_open_device(dev);
        struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
        if (!pd) {
            *err = errno ? errno : EIO;
            if (ctx) ibv_close_device(ctx);
        } else if (!(d = calloc(1, sizeof *d))) {
            *err = ENOMEM;
            ibv_dealloc_pd(pd);
            ibv_close_device(ctx);
        } else {
            d->ctx = ctx; d->pd = pd; d->port = port;
        }
    }
    ibv_free_device_list(list);
    return d;
}

int gsm_port_info(struct gsm_dev *d, int gid_index, uint16_t *lid, uint8_t gid[16], int *active_mtu) {
    struct ibv_port_attr pa;
    if (ibv_query_port(d->ctx, d->port, &pa)) return -1;
    *lid = pa.lid;
    *active_mtu = (int)pa.active_mtu;
    union ibv_gid g;
    memset(&g, 0, sizeof g);
    if (gid_index >= 0 && ibv_query_gid(d->ctx, d->port, gid_index, &g)) return -2;
    memcpy(gid, g.raw, 16);
    return 0;
}

struct ibv_mr *gsm_reg(struct gsm_dev *d, void *addr, size_t len, uint32_t *lkey, uint32_t *rkey) {
    struct ibv_mr *mr = ibv_reg_mr(d->pd, addr, len,
        IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (mr) { *lkey = mr->lkey; *rkey = mr->rkey; }
    return mr;
}

struct ibv_cq *gsm_cq(struct gsm_dev *d, int depth) {
    return ibv_create_cq(d->ctx, depth, NULL, NULL, 0);
}

struct ibv_qp *gsm_qp(struct gsm_dev *d, struct ibv_cq *cq, uint32_t depth, uint32_t inline_bytes, uint32_t *qpn) {
    struct ibv_qp_init_attr a;
    memset(&a, 0, sizeof a);
    a.send_cq = cq; a.recv_cq = cq; a.qp_type = IBV_QPT_RC; a.sq_sig_all = 0;
    a.cap.max_send_wr = depth; a.cap.max_recv_wr = 1;
    a.cap.max_send_sge = 1; a.cap.max_recv_sge = 1; a.cap.max_inline_data = inline_bytes;
    struct ibv_qp *qp = ibv_create_qp(d->pd, &a);
    if (qp) *qpn = qp->qp_num;
    return qp;
}

int gsm_qp_init(struct ibv_qp *qp, uint8_t port) {
    struct ibv_qp_attr a;
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_INIT; a.pkey_index = 0; a.port_num = port;
    a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
    return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

int gsm_qp_rtr(struct ibv_qp *qp, uint8_t port, int mtu, uint32_t dest_qpn, uint32_t rq_psn,
               uint16_t dlid, const uint8_t gid[16], int gid_index, int use_grh) {
    struct ibv_qp_attr a;
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTR; a.path_mtu = (enum ibv_mtu)mtu;
    a.dest_qp_num = dest_qpn; a.rq_psn = rq_psn;
    a.max_dest_rd_atomic = 1; a.min_rnr_timer = 12;
    a.ah_attr.dlid = dlid; a.ah_attr.sl = 0; a.ah_attr.src_path_bits = 0; a.ah_attr.port_num = port;
    if (use_grh) {
        a.ah_attr.is_global = 1;
        memcpy(a.ah_attr.grh.dgid.raw, gid, 16);
        a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
        a.ah_attr.grh.hop_limit = 1;
    }
    return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                         IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
}

int gsm_qp_rts(struct ibv_qp *qp, uint32_t sq_psn) {
    struct ibv_qp_attr a;
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTS; a.timeout = 14; a.retry_cnt = 7; a.rnr_retry = 7;
    a.sq_psn = sq_psn; a.max_rd_atomic = 1;
    return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                         IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* One RDMA WRITE of `len` bytes from local `laddr` (in the MR with `lkey`) to remote
 * `raddr`/`rkey`. Signaled when `signaled` != 0. */
int gsm_write(struct ibv_qp *qp, uint64_t wr_id, const void *laddr, uint32_t len, uint32_t lkey,
              uint64_t raddr, uint32_t rkey, int signaled) {
    struct ibv_sge sge = { .addr = (uintptr_t)laddr, .length = len, .lkey = lkey };
    struct ibv_send_wr wr, *bad = NULL;
    memset(&wr, 0, sizeof wr);
    wr.wr_id = wr_id; wr.sg_list = &sge; wr.num_sge = 1; wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
    wr.wr.rdma.remote_addr = raddr; wr.wr.rdma.rkey = rkey;
    return ibv_post_send(qp, &wr, &bad);
}

/* Polls up to `max` completions; returns how many, or -1 on a failed completion
 * (its status in *bad_status). */
int gsm_poll(struct ibv_cq *cq, int max, int *bad_status) {
    struct ibv_wc wc[16];
    if (max > 16) max = 16;
    int n = ibv_poll_cq(cq, max, wc);
    for (int i = 0; i < n; i++)
        if (wc[i].status != IBV_WC_SUCCESS) { *bad_status = (int)wc[i].status; return -1; }
    return n;
}
