#include "agg.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_DATA = 11, TAG_LAST = 12 };

static void *xcalloc(size_t n, size_t sz) {
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p) {
        fprintf(stderr, "gg: out of memory (%zu x %zu bytes)\n", n, sz);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void post_recv(agg_t *a, int i) {
    MPI_Irecv(a->rbuf + (size_t)i * a->buf_bytes, (int)a->buf_bytes, MPI_BYTE, MPI_ANY_SOURCE,
              MPI_ANY_TAG, a->comm, &a->rreq[i]);
}

int agg_init(agg_t *a, MPI_Comm comm, size_t rec_size, size_t buf_bytes, agg_handler h, void *ctx) {
    memset(a, 0, sizeof *a);
    a->comm = comm;
    MPI_Comm_rank(comm, &a->rank);
    MPI_Comm_size(comm, &a->nranks);
    a->rec_size = rec_size;
    if (buf_bytes < rec_size) buf_bytes = rec_size;
    if (buf_bytes > (1u << 30)) buf_bytes = 1u << 30;
    a->buf_bytes = buf_bytes / rec_size * rec_size;
    a->handler = h;
    a->ctx = ctx;
    a->spin_limit = 1000;
    int others = a->nranks - 1;
    a->npool = others > 0 ? 2 * others + 2 : 0;
    a->pool = xcalloc((size_t)a->npool, a->buf_bytes);
    a->pool_req = xcalloc((size_t)a->npool, sizeof(MPI_Request));
    a->free_list = xcalloc((size_t)a->npool, sizeof(int));
    a->done_idx = xcalloc((size_t)a->npool, sizeof(int));
    for (int i = 0; i < a->npool; i++) {
        a->pool_req[i] = MPI_REQUEST_NULL;
        a->free_list[i] = i;
    }
    a->nfree = a->npool;
    a->cur = xcalloc((size_t)a->nranks, sizeof(int));
    a->fill = xcalloc((size_t)a->nranks, sizeof(size_t));
    for (int d = 0; d < a->nranks; d++) a->cur[d] = -1;
    a->nrecv = others > 0 ? (others < 32 ? 2 * others + 2 : 64) : 0;
    a->rbuf = xcalloc((size_t)a->nrecv, a->buf_bytes);
    a->rreq = xcalloc((size_t)a->nrecv, sizeof(MPI_Request));
    for (int i = 0; i < a->nrecv; i++) post_recv(a, i);
    return 0;
}

void agg_free(agg_t *a) {
    for (int i = 0; i < a->nrecv; i++) {
        MPI_Cancel(&a->rreq[i]);
        MPI_Wait(&a->rreq[i], MPI_STATUS_IGNORE);
    }
    MPI_Waitall(a->npool, a->pool_req, MPI_STATUSES_IGNORE);
    free(a->pool);
    free(a->pool_req);
    free(a->free_list);
    free(a->done_idx);
    free(a->cur);
    free(a->fill);
    free(a->rbuf);
    free(a->rreq);
    memset(a, 0, sizeof *a);
}

void agg_set_handler(agg_t *a, agg_handler h, void *ctx) {
    a->handler = h;
    a->ctx = ctx;
}

/* Handles every arrived message; returns how many there were. */
static int poll_count(agg_t *a) {
    int handled = 0;
    for (;;) {
        int idx, flag;
        MPI_Status st;
        MPI_Testany(a->nrecv, a->rreq, &idx, &flag, &st);
        if (!flag || idx == MPI_UNDEFINED) return handled;
        handled++;
        int nbytes;
        MPI_Get_count(&st, MPI_BYTE, &nbytes);
        const uint8_t *p = a->rbuf + (size_t)idx * a->buf_bytes;
        for (size_t off = 0; off + a->rec_size <= (size_t)nbytes; off += a->rec_size)
            a->handler(a->ctx, p + off);
        if (st.MPI_TAG == TAG_LAST) a->ends_seen++;
        post_recv(a, idx);
    }
}

void agg_poll(agg_t *a) { (void)poll_count(a); }

/* While waiting: spin briefly, then give the core away between polls (like the Gossamer
 * workers), so that ranks sharing a core with others still make progress. */
static void idle(agg_t *a, int progressed, unsigned *spins) {
    if (progressed) {
        *spins = 0;
    } else if (++*spins > a->spin_limit) {
        sched_yield();
    }
}

/* Returns completed send buffers to the free list. */
static void reap_sends(agg_t *a) {
    int outcount;
    MPI_Testsome(a->npool, a->pool_req, &outcount, a->done_idx, MPI_STATUSES_IGNORE);
    if (outcount == MPI_UNDEFINED) return;
    for (int i = 0; i < outcount; i++) a->free_list[a->nfree++] = a->done_idx[i];
}

static int acquire(agg_t *a) {
    unsigned spins = 0;
    while (a->nfree == 0) {
        int got = poll_count(a);
        reap_sends(a);
        idle(a, got || a->nfree, &spins);
    }
    return a->free_list[--a->nfree];
}

static void send_buffer(agg_t *a, int dest, int tag) {
    int b = a->cur[dest];
    MPI_Isend(a->pool + (size_t)b * a->buf_bytes, (int)a->fill[dest], MPI_BYTE, dest, tag, a->comm,
              &a->pool_req[b]);
    a->msgs_sent++;
    a->bytes_sent += a->fill[dest];
    a->cur[dest] = -1;
    a->fill[dest] = 0;
}

void agg_send(agg_t *a, int dest, const void *record) {
    if (dest == a->rank) {
        a->handler(a->ctx, record);
        return;
    }
    if (a->cur[dest] < 0) a->cur[dest] = acquire(a);
    memcpy(a->pool + (size_t)a->cur[dest] * a->buf_bytes + a->fill[dest], record, a->rec_size);
    a->fill[dest] += a->rec_size;
    if (a->fill[dest] == a->buf_bytes) {
        send_buffer(a, dest, TAG_DATA);
        agg_poll(a);
        reap_sends(a);
    }
}

void agg_end_phase(agg_t *a) {
    if (a->nranks == 1) return;
    for (int k = 1; k < a->nranks; k++) {
        int dest = (a->rank + k) % a->nranks; /* stagger destinations */
        if (a->cur[dest] < 0) a->cur[dest] = acquire(a);
        send_buffer(a, dest, TAG_LAST);
    }
    unsigned spins = 0;
    while (a->ends_seen < a->nranks - 1) {
        int got = poll_count(a);
        reap_sends(a);
        idle(a, got, &spins);
    }
    a->ends_seen = 0;
    MPI_Waitall(a->npool, a->pool_req, MPI_STATUSES_IGNORE);
    a->nfree = 0;
    for (int i = 0; i < a->npool; i++) a->free_list[a->nfree++] = i;
}
