/* gg_echo: MPI echo benchmark (the MPI side of the Gossamer echo experiment,
 * dissertation §5.1-5.2). Every rank is both client and server. A client keeps
 * W requests outstanding; each goes to a uniformly random rank and carries
 * SIZE bytes; the server answers with the same bytes. Requests and responses
 * to one rank are packed into one message (up to --batch per message, sent
 * when the window is full or the batch is); --batch 1 sends one MPI message
 * per request. Reports throughput (Mreq/s) and latency percentiles (p50,
 * p99, p99.9) measured from issue to response.
 *
 *   mpirun -np P gg_echo [--size 32] [--window 64] [--seconds 5] [--batch 64]
 *                        [--warmup 0.5] [--exclude-self] [--seed 1] [--spin 1000] [--json]
 *
 * A rank with nothing to do polls --spin times, then yields the core between
 * polls (as Gossamer workers do); --spin never keeps it busy polling.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

enum { TAG_REQ = 21, TAG_RESP = 22 };
#define SUB_BITS 5
#define NBUCKETS (64 + 58 * 32)

static int g_rank, g_nranks;

static void die(const char *fmt, const char *arg) {
    if (g_rank == 0) {
        fprintf(stderr, "gg_echo: error: ");
        fprintf(stderr, fmt, arg);
        fprintf(stderr, "\n");
    }
    MPI_Finalize();
    exit(1);
}

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "gg_echo (rank %d): out of memory (%zu bytes)\n", g_rank, n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* ---------------------------------------------------- latency histogram */

/* Log-linear buckets: exact below 64 ns, then 32 buckets per power of two (~3%). */
static int bucket_of(uint64_t ns) {
    if (ns < 64) return (int)ns;
    int e = 63 - __builtin_clzll(ns);
    uint64_t m = ns >> (e - SUB_BITS);
    return 64 + (e - 6) * 32 + (int)(m - 32);
}

static uint64_t bucket_upper(int i) {
    if (i < 64) return (uint64_t)i;
    int e = (i - 64) / 32 + 6;
    uint64_t m = (uint64_t)((i - 64) % 32 + 32);
    return ((m + 1) << (e - SUB_BITS)) - 1;
}

static double percentile_us(const uint64_t *h, uint64_t total, double q) {
    if (total == 0) return NAN;
    uint64_t want = (uint64_t)ceil(q * (double)total), acc = 0;
    if (want == 0) want = 1;
    for (int i = 0; i < NBUCKETS; i++) {
        acc += h[i];
        if (acc >= want) return (double)bucket_upper(i) / 1e3;
    }
    return (double)bucket_upper(NBUCKETS - 1) / 1e3;
}

/* ------------------------------------------------------ message buffers */

typedef struct {
    int n, cap;
    uint8_t **buf;
    MPI_Request *req;
    int *free_list, nfree;
    int *done;
} pool_t;

static int pool_get(pool_t *p, size_t bytes) {
    if (p->nfree == 0) { /* grow: never wait for a buffer (no deadlock by exhaustion) */
        if (p->n == p->cap) {
            p->cap = p->cap ? 2 * p->cap : 64;
            p->buf = realloc(p->buf, sizeof(uint8_t *) * (size_t)p->cap);
            p->req = realloc(p->req, sizeof(MPI_Request) * (size_t)p->cap);
            p->free_list = realloc(p->free_list, sizeof(int) * (size_t)p->cap);
            p->done = realloc(p->done, sizeof(int) * (size_t)p->cap);
            if (!p->buf || !p->req || !p->free_list || !p->done) die("%s", "out of memory");
        }
        p->buf[p->n] = xmalloc(bytes);
        p->req[p->n] = MPI_REQUEST_NULL;
        p->free_list[p->nfree++] = p->n++;
    }
    return p->free_list[--p->nfree];
}

static void pool_reap(pool_t *p) {
    int out;
    if (p->n == 0) return;
    MPI_Testsome(p->n, p->req, &out, p->done, MPI_STATUSES_IGNORE);
    if (out == MPI_UNDEFINED) return;
    for (int i = 0; i < out; i++) p->free_list[p->nfree++] = p->done[i];
}

/* One partially filled outgoing message per (destination, tag). */
typedef struct {
    int idx; /* pool buffer, -1 = none */
    int count;
} outbuf;

typedef struct {
    size_t size;
    int batch, window, exclude_self, json;
    double seconds, warmup;
    unsigned spin_limit;
    uint64_t seed;
    pool_t pool;
    outbuf *reqout, *respout;
    uint64_t msgs_sent, reqs_per_msg_sum;
} echo_t;

static void flush(echo_t *e, outbuf *o, int dest, int tag) {
    if (o->idx < 0 || o->count == 0) return;
    MPI_Isend(e->pool.buf[o->idx], (int)((size_t)o->count * e->size), MPI_BYTE, dest, tag,
              MPI_COMM_WORLD, &e->pool.req[o->idx]);
    e->msgs_sent++;
    e->reqs_per_msg_sum += (uint64_t)o->count;
    o->idx = -1;
    o->count = 0;
}

static uint8_t *append(echo_t *e, outbuf *o, int dest, int tag) {
    if (o->idx < 0) o->idx = pool_get(&e->pool, (size_t)e->batch * e->size);
    uint8_t *slot = e->pool.buf[o->idx] + (size_t)o->count * e->size;
    o->count++;
    (void)dest;
    (void)tag;
    return slot;
}

static uint64_t xorshift(uint64_t *s) {
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static double parse_num(const char *s, const char *what) {
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(x)) die("%s needs a number", what);
    return x;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_nranks);
    echo_t e;
    memset(&e, 0, sizeof e);
    e.size = 32;
    e.batch = 64;
    e.window = 64;
    e.seconds = 5;
    e.warmup = -1;
    e.seed = 1;
    e.spin_limit = 1000;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (g_rank == 0)
                printf("usage: mpirun -np P gg_echo [--size BYTES (32; 8..65536)] [--window W (64)]\n"
                       "       [--seconds S (5)] [--batch K (64; 1 = one message per request)]\n"
                       "       [--warmup S (min(0.5, seconds/5))] [--exclude-self] [--seed N] [--json]\n"
                       "       [--spin N (1000 idle polls, then yield; 'never' = busy polling)]\n");
            MPI_Finalize();
            return 0;
        }
        if (!strcmp(a, "--exclude-self")) { e.exclude_self = 1; continue; }
        if (!strcmp(a, "--json")) { e.json = 1; continue; }
        if (!v) die("option %s needs a value", a);
        i++;
        if (!strcmp(a, "--spin") && !strcmp(v, "never")) {
            e.spin_limit = UINT32_MAX;
            continue;
        }
        double x = parse_num(v, a);
        if (!strcmp(a, "--size")) {
            if (x < 8 || x > 65536 || x != floor(x)) die("%s", "--size must be an integer in 8..65536 bytes");
            e.size = (size_t)x;
        } else if (!strcmp(a, "--window")) {
            if (x < 1 || x > 1 << 20 || x != floor(x)) die("%s", "--window must be an integer in 1..2^20");
            e.window = (int)x;
        } else if (!strcmp(a, "--batch")) {
            if (x < 1 || x > 1 << 16 || x != floor(x)) die("%s", "--batch must be an integer in 1..65536");
            e.batch = (int)x;
        } else if (!strcmp(a, "--seconds")) {
            if (!(x > 0)) die("%s", "--seconds must be positive");
            e.seconds = x;
        } else if (!strcmp(a, "--warmup")) {
            if (x < 0) die("%s", "--warmup must be >= 0");
            e.warmup = x;
        } else if (!strcmp(a, "--spin")) {
            if (x < 0 || x != floor(x)) die("%s", "--spin must be a non-negative integer or 'never'");
            e.spin_limit = x >= UINT32_MAX ? UINT32_MAX : (unsigned)x;
        } else if (!strcmp(a, "--seed")) {
            e.seed = (uint64_t)x;
        } else {
            die("unknown option %s (see gg_echo --help)", a);
        }
    }
    if (e.warmup < 0) e.warmup = fmin(0.5, e.seconds / 5);
    if (e.exclude_self && g_nranks < 2) die("%s", "--exclude-self needs at least 2 ranks");
    /* keep one message at most 1 MiB */
    if ((size_t)e.batch * e.size > ((size_t)1 << 20)) e.batch = (int)(((size_t)1 << 20) / e.size);
    if (e.batch < 1) e.batch = 1;
    size_t msg_max = (size_t)e.batch * e.size;

    e.reqout = xmalloc(sizeof(outbuf) * (size_t)g_nranks);
    e.respout = xmalloc(sizeof(outbuf) * (size_t)g_nranks);
    for (int d = 0; d < g_nranks; d++) e.reqout[d] = e.respout[d] = (outbuf){-1, 0};

    int nrecv = 2 * g_nranks + 8;
    uint8_t **rbuf = xmalloc(sizeof(uint8_t *) * (size_t)nrecv);
    MPI_Request *rreq = xmalloc(sizeof(MPI_Request) * (size_t)nrecv);
    for (int i = 0; i < nrecv; i++) {
        rbuf[i] = xmalloc(msg_max);
        MPI_Irecv(rbuf[i], (int)msg_max, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rreq[i]);
    }

    /* client state */
    double *sent_at = xmalloc(sizeof(double) * (size_t)e.window);
    uint32_t *seq = xmalloc(sizeof(uint32_t) * (size_t)e.window);
    int *free_slots = xmalloc(sizeof(int) * (size_t)e.window), nfree_slots = e.window;
    for (int i = 0; i < e.window; i++) {
        free_slots[i] = e.window - 1 - i;
        seq[i] = 0;
    }
    uint64_t *hist = calloc(NBUCKETS, sizeof(uint64_t));
    if (!hist) die("%s", "out of memory");
    uint64_t rng = e.seed * 0x9E3779B97F4A7C15ull + (uint64_t)g_rank * 0xD1B54A32D192ED03ull + 1;
    uint64_t completed = 0, measured = 0, served = 0, bad = 0, outstanding = 0;

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), t_warm = t0 + e.warmup, t_end = t_warm + e.seconds, t_stop = 0;
    int stopping = 0, in_barrier = 0, done = 0;
    MPI_Request bar = MPI_REQUEST_NULL;
    unsigned spins = 0;
    while (!done) {
        double now = MPI_Wtime();
        int progressed = 0;
        /* 1. client: fill the window, then flush what was queued */
        if (!stopping && now >= t_end) {
            stopping = 1;
            t_stop = now;
        }
        if (!stopping && nfree_slots > 0) {
            progressed = 1;
            while (nfree_slots > 0) {
                int slot = free_slots[--nfree_slots];
                int dest;
                if (e.exclude_self) {
                    dest = (int)(xorshift(&rng) % (uint64_t)(g_nranks - 1));
                    if (dest >= g_rank) dest++;
                } else {
                    dest = (int)(xorshift(&rng) % (uint64_t)g_nranks);
                }
                uint8_t *p = append(&e, &e.reqout[dest], dest, TAG_REQ);
                uint32_t hdr[2] = {(uint32_t)slot, ++seq[slot]};
                memcpy(p, hdr, 8);
                memset(p + 8, (int)(slot & 0xff), e.size - 8);
                sent_at[slot] = MPI_Wtime();
                outstanding++;
                if (e.reqout[dest].count == e.batch) flush(&e, &e.reqout[dest], dest, TAG_REQ);
            }
            for (int d = 0; d < g_nranks; d++) flush(&e, &e.reqout[d], d, TAG_REQ);
        }
        /* 2. handle everything that arrived */
        for (;;) {
            int idx, flag;
            MPI_Status st;
            MPI_Testany(nrecv, rreq, &idx, &flag, &st);
            if (!flag || idx == MPI_UNDEFINED) break;
            progressed = 1;
            int nbytes;
            MPI_Get_count(&st, MPI_BYTE, &nbytes);
            int n = (int)((size_t)nbytes / e.size), src = st.MPI_SOURCE;
            if (st.MPI_TAG == TAG_REQ) {
                for (int k = 0; k < n; k++) {
                    uint8_t *out = append(&e, &e.respout[src], src, TAG_RESP);
                    memcpy(out, rbuf[idx] + (size_t)k * e.size, e.size);
                    if (e.respout[src].count == e.batch) flush(&e, &e.respout[src], src, TAG_RESP);
                }
                served += (uint64_t)n;
                flush(&e, &e.respout[src], src, TAG_RESP);
            } else {
                double t = MPI_Wtime();
                for (int k = 0; k < n; k++) {
                    uint32_t hdr[2];
                    memcpy(hdr, rbuf[idx] + (size_t)k * e.size, 8);
                    if (hdr[0] >= (uint32_t)e.window || hdr[1] != seq[hdr[0]]) {
                        bad++;
                        continue;
                    }
                    int slot = (int)hdr[0];
                    if (sent_at[slot] >= t_warm && !stopping) {
                        hist[bucket_of((uint64_t)((t - sent_at[slot]) * 1e9))]++;
                        measured++;
                    }
                    if (t >= t_warm && !stopping) completed++;
                    free_slots[nfree_slots++] = slot;
                    outstanding--;
                }
            }
            MPI_Irecv(rbuf[idx], (int)msg_max, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rreq[idx]);
        }
        pool_reap(&e.pool);
        /* 3. termination: own requests all answered -> join a non-blocking barrier, keep serving */
        if (stopping && outstanding == 0 && !in_barrier) {
            MPI_Ibarrier(MPI_COMM_WORLD, &bar);
            in_barrier = 1;
        }
        if (in_barrier) MPI_Test(&bar, &done, MPI_STATUS_IGNORE);
        if (progressed)
            spins = 0;
        else if (++spins > e.spin_limit)
            sched_yield();
    }
    MPI_Waitall(e.pool.n, e.pool.req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < nrecv; i++) {
        MPI_Cancel(&rreq[i]);
        MPI_Wait(&rreq[i], MPI_STATUS_IGNORE);
        free(rbuf[i]);
    }
    double dur = t_stop - t_warm;
    double rate = dur > 0 ? (double)completed / dur : 0, total_rate;
    uint64_t tot[4] = {completed, e.msgs_sent, e.reqs_per_msg_sum, bad}, gtot[4];
    MPI_Reduce(&rate, &total_rate, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(tot, gtot, 4, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    uint64_t *ghist = g_rank == 0 ? calloc(NBUCKETS, sizeof(uint64_t)) : NULL;
    MPI_Reduce(hist, ghist, NBUCKETS, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    uint64_t gmeasured;
    MPI_Reduce(&measured, &gmeasured, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    (void)served;
    if (g_rank == 0) {
        double p50 = percentile_us(ghist, gmeasured, 0.5), p99 = percentile_us(ghist, gmeasured, 0.99),
               p999 = percentile_us(ghist, gmeasured, 0.999), pmax = percentile_us(ghist, gmeasured, 1.0);
        double per_msg = gtot[1] ? (double)gtot[2] / (double)gtot[1] : 0;
        printf("benchmark: echo\nranks: %d\nrequest_bytes: %zu\nwindow_per_rank: %d\nbatch_max: %d\n",
               g_nranks, e.size, e.window, e.batch);
        printf("targets: %s\nseconds: %g\nwarmup_s: %g\n", e.exclude_self ? "other ranks" : "all ranks",
               e.seconds, e.warmup);
        printf("requests_completed: %llu\n", (unsigned long long)gtot[0]);
        printf("throughput_Mreq_s: %.4f\nthroughput_per_rank_Mreq_s: %.4f\n", total_rate / 1e6,
               total_rate / 1e6 / g_nranks);
        printf("latency_p50_us: %.2f\nlatency_p99_us: %.2f\nlatency_p99.9_us: %.2f\nlatency_max_us: %.2f\n",
               p50, p99, p999, pmax);
        if (e.spin_limit == UINT32_MAX) printf("spin_before_yield: never\n");
        else printf("spin_before_yield: %u\n", e.spin_limit);
        printf("messages_sent: %llu\nrequests_per_message: %.2f\n", (unsigned long long)gtot[1], per_msg);
        printf("bad_responses: %llu\n", (unsigned long long)gtot[3]);
        if (e.json)
            printf("{\"tool\":\"gg_echo\",\"ranks\":%d,\"request_bytes\":%zu,\"window\":%d,\"batch\":%d,"
                   "\"seconds\":%g,\"requests\":%llu,\"throughput_mreq_s\":%.6f,\"p50_us\":%.3f,"
                   "\"p99_us\":%.3f,\"p999_us\":%.3f,\"requests_per_message\":%.3f}\n",
                   g_nranks, e.size, e.window, e.batch, e.seconds, (unsigned long long)gtot[0],
                   total_rate / 1e6, p50, p99, p999, per_msg);
        fflush(stdout);
    }
    int failed = g_rank == 0 && gtot[3] != 0;
    if (failed) fprintf(stderr, "gg_echo: error: %llu responses did not match their requests\n", (unsigned long long)gtot[3]);
    for (int i = 0; i < e.pool.n; i++) free(e.pool.buf[i]);
    free(e.pool.buf);
    free(e.pool.req);
    free(e.pool.free_list);
    free(e.pool.done);
    free(e.reqout);
    free(e.respout);
    free(rbuf);
    free(rreq);
    free(sent_at);
    free(seq);
    free(free_slots);
    free(hist);
    free(ghist);
    MPI_Finalize();
    return failed;
}
