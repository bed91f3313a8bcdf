/* gg_graph: MPI baselines for gossamer-graph — level-synchronous BFS and
 * delta-stepping SSSP over a 1D block vertex distribution with aggregated
 * point-to-point messages (see agg.h). Reads a gossamer-graph file (ggfile.h).
 *
 *   mpirun -np P gg_graph bfs|sssp|both FILE [options]    (gg_graph --help)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>

#include "agg.h"
#include "ggfile.h"

/* ---------------------------------------------------------------- utilities */

static int g_rank, g_nranks;

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "gg_graph (rank %d): out of memory allocating %zu bytes\n", g_rank, n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void *xrealloc(void *q, size_t n) {
    void *p = realloc(q, n ? n : 1);
    if (!p) {
        fprintf(stderr, "gg_graph (rank %d): out of memory allocating %zu bytes\n", g_rank, n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* Prints the message on rank 0 (or on every rank when any == 1) and exits everywhere with 1.
 * Must be called collectively unless any == 1. */
static void fail(int any, const char *fmt, ...) {
    if (any || g_rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "gg_graph: error: ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
        va_end(ap);
    }
    if (any) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
    exit(1);
}

static int pread_full(int fd, void *buf, size_t len, uint64_t off) {
    uint8_t *p = buf;
    while (len > 0) {
        ssize_t r = pread(fd, p, len, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        len -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

/* ------------------------------------------------------- block distribution */

/* Like graph_core::Partition with PartitionKind::Block and one trustee per rank:
 * contiguous ranges, the first n % P ranks own one vertex more. */
typedef struct {
    uint64_t n, base, extra, big; /* big = extra * (base + 1) */
    int shift;                    /* log2(base) when n % P == 0 and base is a power of two */
} blockdist;

static blockdist make_dist(uint64_t n, int p) {
    blockdist d = {n, n / (uint64_t)p, n % (uint64_t)p, 0, -1};
    d.big = d.extra * (d.base + 1);
    if (d.extra == 0 && d.base != 0 && (d.base & (d.base - 1)) == 0) d.shift = __builtin_ctzll(d.base);
    return d;
}

static inline int owner_of(const blockdist *d, uint64_t v) {
    if (d->shift >= 0) return (int)(v >> d->shift);
    if (v < d->big) return (int)(v / (d->base + 1));
    return (int)(d->extra + (v - d->big) / d->base);
}

static inline uint32_t local_of(const blockdist *d, uint64_t v) {
    if (d->shift >= 0) return (uint32_t)(v & (d->base - 1));
    if (v < d->big) return (uint32_t)(v % (d->base + 1));
    return (uint32_t)((v - d->big) % d->base);
}

static inline uint64_t first_of(const blockdist *d, int r) {
    uint64_t ur = (uint64_t)r;
    return ur < d->extra ? ur * (d->base + 1) : d->big + (ur - d->extra) * d->base;
}

static inline uint64_t count_of(const blockdist *d, int r) {
    return d->base + ((uint64_t)r < d->extra ? 1 : 0);
}

/* ---------------------------------------------------------------- options */

typedef struct {
    int do_bfs, do_sssp;
    const char *path;
    uint64_t *roots;
    int nroots_given;
    int max_roots; /* from the file, -1 = all */
    double delta;
    int verify_checksum;
    const char *dump_levels, *dump_dist;
    int json, quiet, validate;
    size_t buf_bytes;
    unsigned spin_limit;
} options;

static void usage(FILE *f) {
    fprintf(f,
            "usage: mpirun -np P gg_graph bfs|sssp|both GRAPH_FILE [options]\n"
            "  --root R[,R...]     search roots (default: the roots stored in the file)\n"
            "  --nroots K          use only the first K roots\n"
            "  --delta D           delta-stepping bucket width (default 0.1, > 0)\n"
            "  --no-checksum       skip the data checksum (header checks still run)\n"
            "  --dump-levels PATH  BFS levels of the first root: N x i64 LE, -1 unreached\n"
            "  --dump-dist PATH    SSSP distances of the first root: N x f32 LE, +inf unreached\n"
            "                      (a PATH containing {root} is written for every root)\n"
            "  --validate          check each result against the graph (Graph500-style rules)\n"
            "  --buffer-bytes B    aggregation buffer per destination (default 32768)\n"
            "  --spin N            idle polls before yielding the core while waiting for\n"
            "                      messages (default 1000; 'never' = pure busy polling)\n"
            "  --json              also print one JSON line per kernel\n"
            "  --quiet             no per-root lines\n");
}

static uint64_t parse_u64(const char *s, const char *what) {
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-') fail(0, "%s: '%s' is not a non-negative integer", what, s);
    return x;
}

static options parse_args(int argc, char **argv) {
    options o = {0};
    o.max_roots = -1;
    o.delta = 0.1;
    o.verify_checksum = 1;
    o.buf_bytes = 32768;
    o.spin_limit = 1000;
    int pos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = (i + 1 < argc) ? argv[i + 1] : NULL;
#define NEED()                                                                       \
    do {                                                                             \
        if (!val) fail(0, "option %s needs a value (see gg_graph --help)", a);     \
        i++;                                                                         \
    } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (g_rank == 0) usage(stdout);
            MPI_Finalize();
            exit(0);
        } else if (!strcmp(a, "--root")) {
            NEED();
            char *copy = strdup(val), *save = NULL;
            if (!copy) fail(0, "out of memory");
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (o.nroots_given >= 1000000) fail(0, "--root: more than 10^6 roots");
                o.roots = xrealloc(o.roots, sizeof(uint64_t) * (size_t)(o.nroots_given + 1));
                o.roots[o.nroots_given++] = parse_u64(t, "--root");
            }
            free(copy);
        } else if (!strcmp(a, "--nroots")) {
            NEED();
            uint64_t k = parse_u64(val, "--nroots");
            o.max_roots = k > 1000000 ? 1000000 : (int)k;
        } else if (!strcmp(a, "--delta")) {
            NEED();
            char *end;
            o.delta = strtod(val, &end);
            if (end == val || *end || !(o.delta > 0) || !isfinite(o.delta))
                fail(0, "--delta: '%s' is not a positive finite number", val);
        } else if (!strcmp(a, "--no-checksum")) {
            o.verify_checksum = 0;
        } else if (!strcmp(a, "--dump-levels")) {
            NEED();
            o.dump_levels = val;
        } else if (!strcmp(a, "--dump-dist")) {
            NEED();
            o.dump_dist = val;
        } else if (!strcmp(a, "--buffer-bytes")) {
            NEED();
            o.buf_bytes = (size_t)parse_u64(val, "--buffer-bytes");
            if (o.buf_bytes < 8 || o.buf_bytes > (1u << 30)) fail(0, "--buffer-bytes must be in 8..2^30");
        } else if (!strcmp(a, "--spin")) {
            NEED();
            uint64_t x = !strcmp(val, "never") ? UINT32_MAX : parse_u64(val, "--spin");
            o.spin_limit = x >= UINT32_MAX ? UINT32_MAX : (unsigned)x;
        } else if (!strcmp(a, "--json")) {
            o.json = 1;
        } else if (!strcmp(a, "--quiet")) {
            o.quiet = 1;
        } else if (!strcmp(a, "--validate")) {
            o.validate = 1;
        } else if (a[0] == '-' && a[1]) {
            fail(0, "unknown option %s (see gg_graph --help)", a);
        } else if (pos == 0) {
            if (!strcmp(a, "bfs")) o.do_bfs = 1;
            else if (!strcmp(a, "sssp")) o.do_sssp = 1;
            else if (!strcmp(a, "both")) o.do_bfs = o.do_sssp = 1;
            else fail(0, "unknown kernel '%s': use bfs, sssp or both", a);
            pos++;
        } else if (pos == 1) {
            o.path = a;
            pos++;
        } else {
            fail(0, "unexpected argument '%s' (see gg_graph --help)", a);
        }
#undef NEED
    }
    if (pos < 2) {
        if (g_rank == 0) usage(stderr);
        fail(0, "missing %s", pos == 0 ? "kernel (bfs, sssp or both) and graph file" : "graph file");
    }
    if (o.dump_levels && !o.do_bfs) fail(0, "--dump-levels needs the bfs kernel");
    if (o.dump_dist && !o.do_sssp) fail(0, "--dump-dist needs the sssp kernel");
    return o;
}

/* ------------------------------------------------------- graph construction */

typedef struct {
    blockdist dist;
    uint64_t n_global, m_input;
    uint64_t nlocal, first;
    uint64_t *rowstart; /* nlocal + 1 */
    uint32_t *col;      /* global neighbour ids */
    float *w;
    gg_header header;
} graph;

typedef struct {
    uint32_t src_local, dst;
    float w;
} adj_entry;

/* Reads this rank's share of the records (whole 1 MiB checksum chunks per rank, in rounds),
 * checks them, and sends every non-self-loop edge to the owners of both ends. */
static void build_graph(const options *o, graph *g, double *t_read) {
    double t0 = MPI_Wtime();
    uint8_t hbytes[GG_HEADER_LEN];
    uint64_t file_len = 0;
    int fd = open(o->path, O_RDONLY);
    int open_err = fd < 0 ? errno : 0;
    int any_open_err;
    MPI_Allreduce(&open_err, &any_open_err, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_open_err) {
        int root_err = open_err;
        MPI_Bcast(&root_err, 1, MPI_INT, 0, MPI_COMM_WORLD);
        /* rank 0 speaks for everyone; another rank only when its failure differs */
        if (open_err && (g_rank == 0 || open_err != root_err)) {
            if (open_err == ENOENT)
                fprintf(stderr,
                        "gg_graph: error (rank %d): graph file %s does not exist: check the path, or "
                        "create it with `gossamer-graph generate`\n",
                        g_rank, o->path);
            else
                fprintf(stderr, "gg_graph: error (rank %d): could not open graph file %s: %s\n", g_rank,
                        o->path, strerror(open_err));
        }
        MPI_Finalize();
        exit(1);
    }
    struct stat stt;
    if (fstat(fd, &stt) != 0) fail(1, "could not inspect graph file %s: %s", o->path, strerror(errno));
    file_len = (uint64_t)stt.st_size;
    size_t hlen = file_len < GG_HEADER_LEN ? (size_t)file_len : GG_HEADER_LEN;
    if (pread_full(fd, hbytes, hlen, 0) != 0) fail(1, "could not read graph file %s: %s", o->path, strerror(errno));
    char err[512];
    if (gg_parse_header(hbytes, hlen, file_len, &g->header, err, sizeof err) != 0) fail(0, "%s: %s", o->path, err);

    const gg_header *h = &g->header;
    g->n_global = h->num_vertices;
    g->m_input = h->num_edges;
    g->dist = make_dist(h->num_vertices, g_nranks);
    g->first = first_of(&g->dist, g_rank);
    g->nlocal = count_of(&g->dist, g_rank);
    /* limits of this program (32-bit local indices, int counts in MPI calls) */
    if ((uint64_t)g_nranks > g->n_global && g->n_global > 0)
        fail(0, "%d ranks for %llu vertices: use at most one rank per vertex", g_nranks,
             (unsigned long long)g->n_global);
    if (count_of(&g->dist, 0) > (uint64_t)INT32_MAX)
        fail(0, "%llu vertices per rank is more than this program's 2^31 - 1 limit: use more ranks",
             (unsigned long long)count_of(&g->dist, 0));
    if ((o->dump_levels || o->dump_dist || o->validate) && g->n_global > (uint64_t)INT32_MAX)
        fail(0, "--dump-levels, --dump-dist and --validate gather all %llu vertices and support at "
                "most 2^31 - 1: drop them for this graph",
             (unsigned long long)g->n_global);

    /* byte ranges: whole checksum chunks per rank */
    uint64_t data_len = h->num_edges * GG_RECORD_LEN;
    uint64_t nchunks = data_len == 0 ? 0 : (data_len + GG_CHECKSUM_CHUNK - 1) / GG_CHECKSUM_CHUNK;
    uint64_t c0 = nchunks * (uint64_t)g_rank / (uint64_t)g_nranks;
    uint64_t c1 = nchunks * (uint64_t)(g_rank + 1) / (uint64_t)g_nranks;
    const uint64_t chunks_per_round = 8;
    uint64_t my_rounds = (c1 - c0 + chunks_per_round - 1) / chunks_per_round, rounds;
    MPI_Allreduce(&my_rounds, &rounds, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);

    uint64_t *digests = o->verify_checksum ? xmalloc(sizeof(uint64_t) * (size_t)(c1 - c0 + 1)) : NULL;
    size_t rbuf_cap = (size_t)(chunks_per_round * GG_CHECKSUM_CHUNK + GG_RECORD_LEN);
    uint8_t *rbuf = xmalloc(rbuf_cap);
    int *scount = xmalloc(sizeof(int) * (size_t)g_nranks), *sdispl = xmalloc(sizeof(int) * (size_t)g_nranks);
    int *rcount = xmalloc(sizeof(int) * (size_t)g_nranks), *rdispl = xmalloc(sizeof(int) * (size_t)g_nranks);
    int *cursor = xmalloc(sizeof(int) * (size_t)g_nranks);
    size_t max_round_recs = rbuf_cap / GG_RECORD_LEN + 1;
    adj_entry *sendbuf = xmalloc(sizeof(adj_entry) * 2 * max_round_recs);
    adj_entry *recv = NULL;
    size_t nrecv = 0, recv_cap = 0;
    uint64_t first_bad = UINT64_MAX;
    char bad_msg[512] = "";
    int io_error = 0;

    for (uint64_t r = 0; r < rounds; r++) {
        uint64_t ca = c0 + r * chunks_per_round, cb = ca + chunks_per_round;
        if (cb > c1) cb = c1;
        uint64_t nsend = 0;
        for (int d = 0; d < g_nranks; d++) scount[d] = 0;
        uint64_t rec_lo = 0, rec_hi = 0;
        if (ca < cb && !io_error) {
            uint64_t b0 = ca * GG_CHECKSUM_CHUNK, b1 = cb * GG_CHECKSUM_CHUNK;
            if (b1 > data_len) b1 = data_len;
            rec_lo = (b0 + GG_RECORD_LEN - 1) / GG_RECORD_LEN;
            rec_hi = (b1 + GG_RECORD_LEN - 1) / GG_RECORD_LEN;
            uint64_t rd_end = rec_hi * GG_RECORD_LEN; /* >= b1, <= data_len */
            uint64_t rd_begin = b0 < rec_lo * GG_RECORD_LEN ? b0 : rec_lo * GG_RECORD_LEN;
            size_t len = (size_t)(rd_end - rd_begin);
            if (pread_full(fd, rbuf, len, GG_HEADER_LEN + rd_begin) != 0) {
                io_error = errno ? errno : EIO;
                rec_lo = rec_hi = 0;
            } else {
                if (digests)
                    for (uint64_t c = ca; c < cb; c++) {
                        uint64_t cs = c * GG_CHECKSUM_CHUNK, ce = cs + GG_CHECKSUM_CHUNK;
                        if (ce > data_len) ce = data_len;
                        digests[c - c0] = gg_chunk_digest(rbuf + (cs - rd_begin), (size_t)(ce - cs), c);
                    }
                /* count, then fill per destination */
                for (int pass = 0; pass < 2; pass++) {
                    if (pass == 1) {
                        int acc = 0;
                        for (int d = 0; d < g_nranks; d++) {
                            sdispl[d] = acc;
                            cursor[d] = acc;
                            acc += scount[d];
                        }
                        nsend = (uint64_t)acc;
                    }
                    for (uint64_t i = rec_lo; i < rec_hi; i++) {
                        gg_record e = gg_decode_record(rbuf + (i * GG_RECORD_LEN - rd_begin));
                        if (pass == 0 && first_bad == UINT64_MAX &&
                            gg_check_record(e, i, g->n_global, bad_msg, sizeof bad_msg) != 0)
                            first_bad = i;
                        if (e.u >= g->n_global || e.v >= g->n_global || isnan(e.w) || e.w < 0.0f) continue;
                        if (e.u == e.v) continue;
                        int du = owner_of(&g->dist, e.u), dv = owner_of(&g->dist, e.v);
                        if (pass == 0) {
                            scount[du]++;
                            scount[dv]++;
                        } else {
                            sendbuf[cursor[du]++] = (adj_entry){local_of(&g->dist, e.u), e.v, e.w};
                            sendbuf[cursor[dv]++] = (adj_entry){local_of(&g->dist, e.v), e.u, e.w};
                        }
                    }
                }
            }
        }
        (void)nsend;
        if (!(ca < cb) || io_error)
            for (int d = 0; d < g_nranks; d++) sdispl[d] = 0;
        MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
        size_t total = 0;
        for (int d = 0; d < g_nranks; d++) {
            rdispl[d] = (int)total;
            total += (size_t)rcount[d];
        }
        if (nrecv + total > recv_cap) {
            recv_cap = (nrecv + total) * 3 / 2 + 1024;
            recv = xrealloc(recv, recv_cap * sizeof(adj_entry));
        }
        MPI_Datatype t;
        MPI_Type_contiguous((int)sizeof(adj_entry), MPI_BYTE, &t);
        MPI_Type_commit(&t);
        MPI_Alltoallv(sendbuf, scount, sdispl, t, recv + nrecv, rcount, rdispl, t, MPI_COMM_WORLD);
        MPI_Type_free(&t);
        nrecv += total;
    }
    close(fd);
    free(rbuf);
    free(sendbuf);

    int any_io;
    MPI_Allreduce(&io_error, &any_io, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_io) {
        if (io_error) fprintf(stderr, "gg_graph: error (rank %d): could not read graph file %s: %s\n", g_rank, o->path, strerror(io_error));
        MPI_Finalize();
        exit(1);
    }
    if (o->verify_checksum) {
        /* gather every chunk digest in order, fold on every rank */
        int mine = (int)(c1 - c0);
        int *cnt = xmalloc(sizeof(int) * (size_t)g_nranks), *dsp = xmalloc(sizeof(int) * (size_t)g_nranks);
        MPI_Allgather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, MPI_COMM_WORLD);
        int acc = 0;
        for (int d = 0; d < g_nranks; d++) {
            dsp[d] = acc;
            acc += cnt[d];
        }
        uint64_t *all = xmalloc(sizeof(uint64_t) * (size_t)(acc + 1));
        MPI_Allgatherv(digests, mine, MPI_UINT64_T, all, cnt, dsp, MPI_UINT64_T, MPI_COMM_WORLD);
        if (acc == 0) {
            all[0] = gg_chunk_digest(NULL, 0, 0);
            acc = 1;
        }
        uint64_t sum = gg_checksum_fold(all, (size_t)acc, data_len);
        if (sum != h->data_checksum)
            fail(0,
                 "%s: the graph file's edge data is corrupt (checksum 0x%016llx, stored 0x%016llx); "
                 "regenerate it with `gossamer-graph generate`, or pass --no-checksum to skip this check",
                 o->path, (unsigned long long)sum, (unsigned long long)h->data_checksum);
        free(all);
        free(cnt);
        free(dsp);
        free(digests);
    }
    uint64_t global_bad;
    MPI_Allreduce(&first_bad, &global_bad, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    if (global_bad != UINT64_MAX) {
        if (first_bad == global_bad) fprintf(stderr, "gg_graph: error: %s: %s\n", o->path, bad_msg);
        MPI_Finalize();
        exit(1);
    }
    free(scount);
    free(sdispl);
    free(rcount);
    free(rdispl);
    free(cursor);

    /* local CSR by counting sort on the local source */
    g->rowstart = xmalloc(sizeof(uint64_t) * (size_t)(g->nlocal + 1));
    memset(g->rowstart, 0, sizeof(uint64_t) * (size_t)(g->nlocal + 1));
    for (size_t i = 0; i < nrecv; i++) g->rowstart[recv[i].src_local + 1]++;
    for (uint64_t v = 0; v < g->nlocal; v++) g->rowstart[v + 1] += g->rowstart[v];
    g->col = xmalloc(sizeof(uint32_t) * nrecv);
    g->w = xmalloc(sizeof(float) * nrecv);
    uint64_t *pos = xmalloc(sizeof(uint64_t) * (size_t)(g->nlocal + 1));
    memcpy(pos, g->rowstart, sizeof(uint64_t) * (size_t)(g->nlocal + 1));
    for (size_t i = 0; i < nrecv; i++) {
        uint64_t p = pos[recv[i].src_local]++;
        g->col[p] = recv[i].dst;
        g->w[p] = recv[i].w;
    }
    free(pos);
    free(recv);
    *t_read = MPI_Wtime() - t0;
}

/* ------------------------------------------------------------------- BFS */

typedef struct {
    uint32_t target_local, parent;
} bfs_msg;

typedef struct {
    int32_t *level;
    uint32_t *parent;
    uint32_t *next;
    uint64_t nnext;
    int32_t next_level;
} bfs_state;

static void bfs_visit(void *ctx, const void *rec) {
    bfs_state *s = ctx;
    bfs_msg m;
    memcpy(&m, rec, sizeof m);
    if (s->level[m.target_local] < 0) {
        s->level[m.target_local] = s->next_level;
        s->parent[m.target_local] = m.parent;
        s->next[s->nnext++] = m.target_local;
    }
}

/* Level-synchronous top-down BFS. level[] must be all -1 on entry. */
static void run_bfs(const graph *g, agg_t *agg, uint64_t root, bfs_state *s, uint32_t *frontier) {
    uint64_t nfront = 0;
    s->nnext = 0;
    if (owner_of(&g->dist, root) == g_rank) {
        uint32_t r = local_of(&g->dist, root);
        s->level[r] = 0;
        s->parent[r] = (uint32_t)root;
        frontier[nfront++] = r;
    }
    agg_set_handler(agg, bfs_visit, s);
    int32_t lvl = 0;
    for (;;) {
        s->next_level = lvl + 1;
        for (uint64_t i = 0; i < nfront; i++) {
            uint32_t u = frontier[i];
            bfs_msg m = {0, (uint32_t)(g->first + u)};
            for (uint64_t j = g->rowstart[u]; j < g->rowstart[u + 1]; j++) {
                uint32_t v = g->col[j];
                int d = owner_of(&g->dist, v);
                m.target_local = local_of(&g->dist, v);
                if (d == g_rank)
                    bfs_visit(s, &m); /* same as agg_send's local path, but inlined */
                else
                    agg_send(agg, d, &m);
            }
        }
        agg_end_phase(agg);
        uint64_t local_next = s->nnext, total;
        MPI_Allreduce(&local_next, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (total == 0) break;
        uint32_t *t = frontier;
        frontier = s->next;
        s->next = t;
        nfront = s->nnext;
        s->nnext = 0;
        lvl++;
    }
}

/* ------------------------------------------------------------------ SSSP */

typedef struct {
    uint32_t target_local;
    float dist;
} relax_msg;

typedef struct {
    float *dist;
    uint8_t *pending; /* distance improved since the vertex last relaxed its edges */
    uint8_t *inq;     /* queued in next */
    uint8_t *inr;     /* relaxed its light edges in the current bucket */
    uint32_t *next;
    uint64_t nnext;
    int light;
    int64_t bucket;
    double inv_delta;
} sssp_state;

static inline int64_t bucket_of(float d, double inv_delta) {
    double b = (double)d * inv_delta;
    return b < 4.0e18 ? (int64_t)b : (int64_t)4e18;
}

static void sssp_relax(void *ctx, const void *rec) {
    sssp_state *s = ctx;
    relax_msg m;
    memcpy(&m, rec, sizeof m);
    uint32_t t = m.target_local;
    if (m.dist < s->dist[t]) {
        s->dist[t] = m.dist;
        s->pending[t] = 1;
        if (s->light && !s->inq[t] && bucket_of(m.dist, s->inv_delta) == s->bucket) {
            s->inq[t] = 1;
            s->next[s->nnext++] = t;
        }
    }
}

/* Delta-stepping with f32 distances (dist[u] + w evaluated in float). Buckets are
 * [k*delta, (k+1)*delta); light edges have w < delta. A vertex whose distance improves is
 * "pending" until it relaxes its edges again, so the result is the least fixed point
 * d(v) = min_u fl(d(u) + w(u,v)) whatever the float rounding at bucket borders.
 * dist[] must be +inf and the flag arrays 0 on entry. */
static void run_sssp(const graph *g, agg_t *agg, uint64_t root, double delta, sssp_state *s,
                     uint32_t *frontier, uint32_t *settled) {
    const float fdelta = (float)delta;
    s->inv_delta = 1.0 / delta;
    if (owner_of(&g->dist, root) == g_rank) {
        uint32_t r = local_of(&g->dist, root);
        s->dist[r] = 0.0f;
        s->pending[r] = 1;
    }
    agg_set_handler(agg, sssp_relax, s);
    int64_t k = 0;
    for (;;) {
        /* 1. light edges, repeated until bucket k stops changing */
        s->bucket = k;
        s->light = 1;
        uint64_t nfront = 0, nset = 0;
        for (uint64_t v = 0; v < g->nlocal; v++)
            if (s->pending[v] && bucket_of(s->dist[v], s->inv_delta) == k) {
                s->inq[v] = 1;
                frontier[nfront++] = (uint32_t)v;
            }
        for (;;) {
            s->nnext = 0;
            for (uint64_t i = 0; i < nfront; i++) {
                uint32_t u = frontier[i];
                s->inq[u] = 0;
                s->pending[u] = 0;
                if (!s->inr[u]) {
                    s->inr[u] = 1;
                    settled[nset++] = u;
                }
                for (uint64_t j = g->rowstart[u]; j < g->rowstart[u + 1]; j++) {
                    float w = g->w[j];
                    if (w < fdelta) {
                        uint32_t v = g->col[j];
                        int d = owner_of(&g->dist, v);
                        relax_msg m = {local_of(&g->dist, v), s->dist[u] + w};
                        if (d == g_rank)
                            sssp_relax(s, &m);
                        else
                            agg_send(agg, d, &m);
                    }
                }
            }
            agg_end_phase(agg);
            uint64_t mine = s->nnext, total;
            MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
            if (total == 0) break;
            uint32_t *t = frontier;
            frontier = s->next;
            s->next = t;
            nfront = s->nnext;
        }
        /* 2. heavy edges of every vertex settled in this bucket */
        s->light = 0;
        for (uint64_t i = 0; i < nset; i++) {
            uint32_t u = settled[i];
            s->inr[u] = 0;
            for (uint64_t j = g->rowstart[u]; j < g->rowstart[u + 1]; j++) {
                float w = g->w[j];
                if (!(w < fdelta)) {
                    uint32_t v = g->col[j];
                    int d = owner_of(&g->dist, v);
                    relax_msg m = {local_of(&g->dist, v), s->dist[u] + w};
                    if (d == g_rank)
                        sssp_relax(s, &m);
                    else
                        agg_send(agg, d, &m);
                }
            }
        }
        agg_end_phase(agg);
        /* 3. next bucket: the lowest one holding a pending vertex */
        int64_t lo = INT64_MAX, glo;
        for (uint64_t v = 0; v < g->nlocal; v++)
            if (s->pending[v]) {
                int64_t b = bucket_of(s->dist[v], s->inv_delta);
                if (b < lo) lo = b;
            }
        MPI_Allreduce(&lo, &glo, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
        if (glo == INT64_MAX) break;
        k = glo;
    }
}

/* ------------------------------------------------------------ validation */

/* Graph500-style checks with a remote lookup of each edge's far end:
 * BFS: root level 0; for every edge both ends reached or both unreached, levels differ by <= 1;
 *      each reached non-root vertex has a parent that is a neighbour one level up.
 * SSSP: root 0; reached-ness agrees across edges; d(v) <= fl(d(u) + w) for every edge;
 *      each reached non-root vertex has an edge with fl(d(u) + w) == d(v).
 * Returns the number of violations (global). */
static uint64_t validate(const graph *g, uint64_t root, const int32_t *level, const uint32_t *parent,
                         const float *dist) {
    /* fetch the values of all vertices (small graphs only: gathers N values on every rank) */
    uint64_t n = g->n_global, bad = 0;
    int *cnt = xmalloc(sizeof(int) * (size_t)g_nranks), *dsp = xmalloc(sizeof(int) * (size_t)g_nranks);
    for (int r = 0; r < g_nranks; r++) {
        cnt[r] = (int)count_of(&g->dist, r);
        dsp[r] = (int)first_of(&g->dist, r);
    }
    int32_t *all_level = NULL;
    float *all_dist = NULL;
    if (level) {
        all_level = xmalloc(sizeof(int32_t) * (size_t)n);
        MPI_Allgatherv(level, (int)g->nlocal, MPI_INT32_T, all_level, cnt, dsp, MPI_INT32_T, MPI_COMM_WORLD);
    }
    if (dist) {
        all_dist = xmalloc(sizeof(float) * (size_t)n);
        MPI_Allgatherv(dist, (int)g->nlocal, MPI_FLOAT, all_dist, cnt, dsp, MPI_FLOAT, MPI_COMM_WORLD);
    }
    for (uint64_t u = 0; u < g->nlocal; u++) {
        uint64_t gu = g->first + u;
        int has_tight = 0;
        for (uint64_t j = g->rowstart[u]; j < g->rowstart[u + 1]; j++) {
            uint32_t v = g->col[j];
            if (level) {
                int a = level[u] >= 0, b = all_level[v] >= 0;
                if (a != b) bad++;
                if (a && b && abs(level[u] - all_level[v]) > 1) bad++;
                if (a && gu != root && parent[u] == v && all_level[v] == level[u] - 1) has_tight = 1;
            } else {
                int a = isfinite(dist[u]), b = isfinite(all_dist[v]);
                if (a != b) bad++;
                if (b && !(dist[u] <= all_dist[v] + g->w[j])) bad++;
                if (a && gu != root && all_dist[v] + g->w[j] == dist[u]) has_tight = 1;
            }
        }
        int reached = level ? level[u] >= 0 : isfinite(dist[u]);
        if (gu == root && (level ? level[u] != 0 : dist[u] != 0.0f)) bad++;
        if (reached && gu != root && !has_tight) bad++;
    }
    free(all_level);
    free(all_dist);
    free(cnt);
    free(dsp);
    uint64_t total;
    MPI_Allreduce(&bad, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

/* --------------------------------------------------------------- output */

static void dump_vector(const graph *g, const char *path, const void *local, size_t elem, MPI_Datatype t) {
    int *cnt = NULL, *dsp = NULL;
    uint8_t *all = NULL;
    if (g_rank == 0) {
        cnt = xmalloc(sizeof(int) * (size_t)g_nranks);
        dsp = xmalloc(sizeof(int) * (size_t)g_nranks);
        for (int r = 0; r < g_nranks; r++) {
            cnt[r] = (int)count_of(&g->dist, r);
            dsp[r] = (int)first_of(&g->dist, r);
        }
        all = xmalloc(elem * (size_t)g->n_global);
    }
    MPI_Gatherv(local, (int)g->nlocal, t, all, cnt, dsp, t, 0, MPI_COMM_WORLD);
    int ok = 1;
    if (g_rank == 0) {
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(all, elem, (size_t)g->n_global, f) != (size_t)g->n_global) ok = 0;
        if (f && fclose(f) != 0) ok = 0;
        if (!ok) fprintf(stderr, "gg_graph: error: could not write %s: %s\n", path, strerror(errno));
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(cnt);
    free(dsp);
    free(all);
    if (!ok) {
        MPI_Finalize();
        exit(1);
    }
}

/* The dump path for root i: PATH with "{root}" replaced by the root id (every root), or PATH
 * itself for the first root only; NULL when nothing is to be written. */
static char *dump_path(const char *path, int i, uint64_t root) {
    if (!path) return NULL;
    const char *at = strstr(path, "{root}");
    if (!at) return i == 0 ? strdup(path) : NULL;
    size_t n = strlen(path) + 32;
    char *out = xmalloc(n);
    snprintf(out, n, "%.*s%llu%s", (int)(at - path), path, (unsigned long long)root, at + 6);
    return out;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const options *o, const graph *g, const char *kernel, const uint64_t *roots, int nroots,
                   const double *times, const uint64_t *nedge, double t_build, uint64_t agg_msgs,
                   uint64_t agg_bytes, uint64_t violations) {
    if (g_rank != 0) return;
    double *teps = xmalloc(sizeof(double) * (size_t)nroots), *sorted = xmalloc(sizeof(double) * (size_t)nroots);
    double inv_sum = 0;
    int counted = 0; /* roots that traverse no edge (isolated) are left out of the mean */
    for (int i = 0; i < nroots; i++) {
        teps[i] = times[i] > 0 ? (double)nedge[i] / times[i] : 0;
        if (teps[i] > 0) {
            inv_sum += 1.0 / teps[i];
            counted++;
        }
        sorted[i] = times[i];
        if (!o->quiet)
            printf("%s_run: root=%llu time_s=%.9f traversed_edges=%llu teps=%.6e\n", kernel,
                   (unsigned long long)roots[i], times[i], (unsigned long long)nedge[i], teps[i]);
    }
    qsort(sorted, (size_t)nroots, sizeof(double), cmp_double);
    double hmean = counted > 0 ? counted / inv_sum : 0;
    double median = nroots % 2 ? sorted[nroots / 2] : 0.5 * (sorted[nroots / 2 - 1] + sorted[nroots / 2]);
    printf("kernel: %s\n", kernel);
    printf("graph_file: %s\n", o->path);
    printf("ranks: %d\n", g_nranks);
    printf("vertices: %llu\n", (unsigned long long)g->n_global);
    printf("input_edges: %llu\n", (unsigned long long)g->m_input);
    printf("construction_time_s: %.6f\n", t_build);
    if (!strcmp(kernel, "sssp")) printf("delta: %g\n", o->delta);
    printf("nroots: %d\n", nroots);
    printf("%s_min_time_s: %.9f\n", kernel, sorted[0]);
    printf("%s_median_time_s: %.9f\n", kernel, median);
    printf("%s_max_time_s: %.9f\n", kernel, sorted[nroots - 1]);
    printf("%s_harmonic_mean_TEPS: %.6e\n", kernel, hmean);
    if (counted < nroots) printf("%s_roots_without_edges: %d (not in the mean)\n", kernel, nroots - counted);
    printf("%s_messages_sent_rank0: %llu\n", kernel, (unsigned long long)agg_msgs);
    printf("%s_bytes_sent_rank0: %llu\n", kernel, (unsigned long long)agg_bytes);
    if (o->validate) printf("%s_validation: %s (%llu violations)\n", kernel, violations ? "FAILED" : "passed", (unsigned long long)violations);
    if (o->json) {
        printf("{\"tool\":\"gg_graph\",\"kernel\":\"%s\",\"ranks\":%d,\"vertices\":%llu,\"input_edges\":%llu,"
               "\"construction_time_s\":%.6f,",
               kernel, g_nranks, (unsigned long long)g->n_global, (unsigned long long)g->m_input, t_build);
        if (!strcmp(kernel, "sssp")) printf("\"delta\":%.9g,", o->delta);
        printf("\"roots\":[");
        for (int i = 0; i < nroots; i++) printf("%s%llu", i ? "," : "", (unsigned long long)roots[i]);
        printf("],\"times_s\":[");
        for (int i = 0; i < nroots; i++) printf("%s%.9f", i ? "," : "", times[i]);
        printf("],\"traversed_edges\":[");
        for (int i = 0; i < nroots; i++) printf("%s%llu", i ? "," : "", (unsigned long long)nedge[i]);
        printf("],\"median_time_s\":%.9f,\"harmonic_mean_teps\":%.6e}\n", median, hmean);
    }
    fflush(stdout);
    free(teps);
    free(sorted);
}

/* ----------------------------------------------------------------- main */

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_nranks);
    options o = parse_args(argc, argv);

    graph g;
    memset(&g, 0, sizeof g);
    double t_build;
    build_graph(&o, &g, &t_build);

    /* roots */
    uint64_t *roots;
    int nroots;
    if (o.nroots_given) {
        roots = o.roots;
        nroots = o.nroots_given;
    } else {
        roots = g.header.roots;
        nroots = (int)g.header.num_roots;
        if (nroots == 0) fail(0, "%s stores no search roots: pass --root R", o.path);
    }
    if (o.max_roots >= 0 && o.max_roots < nroots) nroots = o.max_roots;
    if (nroots == 0) fail(0, "--nroots 0 leaves nothing to run");
    for (int i = 0; i < nroots; i++)
        if (roots[i] >= g.n_global)
            fail(0, "root %llu is not a vertex of %s (it has %llu vertices)", (unsigned long long)roots[i],
                 o.path, (unsigned long long)g.n_global);

    agg_t agg;
    agg_init(&agg, MPI_COMM_WORLD, 8, o.buf_bytes, NULL, NULL);
    agg.spin_limit = o.spin_limit;
    double *times = xmalloc(sizeof(double) * (size_t)nroots);
    uint64_t *nedge = xmalloc(sizeof(uint64_t) * (size_t)nroots);
    size_t nl = (size_t)g.nlocal;
    uint32_t *frontier = xmalloc(sizeof(uint32_t) * nl), *next = xmalloc(sizeof(uint32_t) * nl);

    if (o.do_bfs) {
        bfs_state s = {xmalloc(sizeof(int32_t) * nl), xmalloc(sizeof(uint32_t) * nl), next, 0, 0};
        uint64_t violations = 0;
        agg.msgs_sent = agg.bytes_sent = 0;
        for (int i = 0; i < nroots; i++) {
            for (size_t v = 0; v < nl; v++) s.level[v] = -1;
            s.next = next;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            run_bfs(&g, &agg, roots[i], &s, frontier);
            MPI_Barrier(MPI_COMM_WORLD);
            times[i] = MPI_Wtime() - t0;
            uint64_t deg = 0, total;
            for (size_t v = 0; v < nl; v++)
                if (s.level[v] >= 0) deg += g.rowstart[v + 1] - g.rowstart[v];
            MPI_Allreduce(&deg, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
            nedge[i] = total / 2;
            if (o.validate) violations += validate(&g, roots[i], s.level, s.parent, NULL);
            char *dp = dump_path(o.dump_levels, i, roots[i]);
            if (dp) {
                int64_t *l64 = xmalloc(sizeof(int64_t) * nl);
                for (size_t v = 0; v < nl; v++) l64[v] = s.level[v];
                dump_vector(&g, dp, l64, 8, MPI_INT64_T);
                free(l64);
                free(dp);
            }
        }
        report(&o, &g, "bfs", roots, nroots, times, nedge, t_build, agg.msgs_sent, agg.bytes_sent, violations);
        free(s.level);
        free(s.parent);
    }
    if (o.do_sssp) {
        sssp_state s;
        memset(&s, 0, sizeof s);
        s.dist = xmalloc(sizeof(float) * nl);
        s.pending = xmalloc(nl);
        s.inq = xmalloc(nl);
        s.inr = xmalloc(nl);
        uint32_t *settled = xmalloc(sizeof(uint32_t) * nl);
        uint64_t violations = 0;
        agg.msgs_sent = agg.bytes_sent = 0;
        for (int i = 0; i < nroots; i++) {
            for (size_t v = 0; v < nl; v++) s.dist[v] = INFINITY;
            memset(s.pending, 0, nl);
            memset(s.inq, 0, nl);
            memset(s.inr, 0, nl);
            s.next = next;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            run_sssp(&g, &agg, roots[i], o.delta, &s, frontier, settled);
            MPI_Barrier(MPI_COMM_WORLD);
            times[i] = MPI_Wtime() - t0;
            uint64_t deg = 0, total;
            for (size_t v = 0; v < nl; v++)
                if (isfinite(s.dist[v])) deg += g.rowstart[v + 1] - g.rowstart[v];
            MPI_Allreduce(&deg, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
            nedge[i] = total / 2;
            if (o.validate) violations += validate(&g, roots[i], NULL, NULL, s.dist);
            char *dp = dump_path(o.dump_dist, i, roots[i]);
            if (dp) {
                dump_vector(&g, dp, s.dist, 4, MPI_FLOAT);
                free(dp);
            }
        }
        report(&o, &g, "sssp", roots, nroots, times, nedge, t_build, agg.msgs_sent, agg.bytes_sent, violations);
        free(s.dist);
        free(s.pending);
        free(s.inq);
        free(s.inr);
        free(settled);
    }
    agg_free(&agg);
    free(times);
    free(nedge);
    free(frontier);
    free(next);
    free(g.rowstart);
    free(g.col);
    free(g.w);
    free(o.roots);
    MPI_Finalize();
    return 0;
}
