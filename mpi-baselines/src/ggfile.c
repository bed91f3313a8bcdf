/* Graph-file header codec and checksum64 (own C rendering of the format in
 * graph-core/src/io/file/mod.rs and graph-core/src/io/file/checksum.rs). */
#include "ggfile.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const uint64_t P1 = 0x9E3779B97F4A7C15ull;
static const uint64_t P2 = 0xC2B2AE3D27D4EB4Full;
static const uint64_t P3 = 0x165667B19E3779F9ull;

static inline uint64_t rotl(uint64_t x, unsigned r) { return (x << r) | (x >> ((64 - r) & 63)); }

static inline uint64_t round64(uint64_t acc, uint64_t word) {
    return rotl(acc ^ (word * P1), 31) * P2;
}

static inline uint64_t finish(uint64_t h) {
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    return h ^ (h >> 32);
}

/* Little-endian word from up to 8 bytes (missing high bytes are zero). */
static inline uint64_t le_word(const uint8_t *b, size_t n) {
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++) w |= (uint64_t)b[i] << (8 * i);
    return w;
}

static inline uint32_t get32(const uint8_t *b) { return (uint32_t)le_word(b, 4); }
static inline uint64_t get64(const uint8_t *b) { return le_word(b, 8); }
static inline void put32(uint8_t *b, uint32_t x) {
    for (int i = 0; i < 4; i++) b[i] = (uint8_t)(x >> (8 * i));
}
static inline void put64(uint8_t *b, uint64_t x) {
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(x >> (8 * i));
}

uint64_t gg_chunk_digest(const uint8_t *data, size_t len, uint64_t index) {
    uint64_t seed = (index * P3) ^ (uint64_t)len;
    uint64_t l0 = seed ^ P1, l1 = seed ^ P2, l2 = seed ^ P3, l3 = rotl(seed, 17);
    size_t nblocks = len / 32;
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *p = data + 32 * b;
        l0 = round64(l0, le_word(p, 8));
        l1 = round64(l1, le_word(p + 8, 8));
        l2 = round64(l2, le_word(p + 16, 8));
        l3 = round64(l3, le_word(p + 24, 8));
    }
    uint64_t h = rotl(l0, 1) + rotl(l1, 7) + rotl(l2, 12) + rotl(l3, 18);
    for (size_t off = 32 * nblocks; off < len; off += 8) {
        size_t n = len - off < 8 ? len - off : 8;
        h = round64(h, le_word(data + off, n) ^ ((uint64_t)n << 56));
    }
    return finish(h);
}

size_t gg_checksum_nchunks(uint64_t len) {
    if (len <= GG_CHECKSUM_CHUNK) return 1;
    return (size_t)((len + GG_CHECKSUM_CHUNK - 1) / GG_CHECKSUM_CHUNK);
}

uint64_t gg_checksum_fold(const uint64_t *digests, size_t ndigests, uint64_t total_len) {
    uint64_t h = P3 ^ total_len;
    for (size_t i = 0; i < ndigests; i++) h = round64(h, digests[i]);
    return finish(h ^ total_len);
}

uint64_t gg_checksum64(const uint8_t *data, size_t len) {
    uint64_t h = P3 ^ (uint64_t)len;
    size_t n = gg_checksum_nchunks(len);
    for (size_t i = 0; i < n; i++) {
        size_t off = i * GG_CHECKSUM_CHUNK;
        size_t l = len - off < GG_CHECKSUM_CHUNK ? len - off : GG_CHECKSUM_CHUNK;
        h = round64(h, gg_chunk_digest(data + off, l, i));
    }
    return finish(h ^ (uint64_t)len);
}

#define REGEN "regenerate it with `gossamer-graph generate` (or mpi-baselines/build/gg_vec2file)"

int gg_parse_header(const uint8_t *b, size_t nbytes, uint64_t file_len, gg_header *h, char *err,
                    size_t errlen) {
    memset(h, 0, sizeof *h);
    size_t n = nbytes < 8 ? nbytes : 8;
    if (memcmp(b, "GOSGRAPH", n) != 0 || nbytes == 0) {
        snprintf(err, errlen,
                 "not a gossamer-graph file (its first bytes are not the GOSGRAPH magic): pass a "
                 "file written by `gossamer-graph generate`");
        return -1;
    }
    if (nbytes >= 12 && get32(b + 8) != 1) {
        snprintf(err, errlen, "the graph file was written by format v%u, this program reads v1: %s",
                 get32(b + 8), REGEN);
        return -1;
    }
    if (nbytes < GG_HEADER_LEN) {
        snprintf(err, errlen,
                 "the graph file is truncated: it has %zu bytes, fewer than the 1024-byte header; %s",
                 nbytes, REGEN);
        return -1;
    }
    uint64_t stored = get64(b + 1016), computed = gg_checksum64(b, 1016);
    if (stored != computed) {
        snprintf(err, errlen,
                 "the graph file's header is corrupt (checksum 0x%016llx, stored 0x%016llx); %s",
                 (unsigned long long)computed, (unsigned long long)stored, REGEN);
        return -1;
    }
    if (get32(b + 12) != GG_HEADER_LEN || get32(b + 16) != GG_RECORD_LEN ||
        get64(b + 64) != GG_HEADER_LEN) {
        snprintf(err, errlen,
                 "the graph file's header is invalid: header length %u, record length %u, data "
                 "offset %llu (expected 1024, 12, 1024); %s",
                 get32(b + 12), get32(b + 16), (unsigned long long)get64(b + 64), REGEN);
        return -1;
    }
    h->flags = get32(b + 20);
    if (h->flags & ~1u) {
        snprintf(err, errlen, "the graph file's header is invalid: unknown flags 0x%x; %s",
                 h->flags, REGEN);
        return -1;
    }
    h->scale = get32(b + 24);
    h->edgefactor = get32(b + 28);
    h->seed1 = get64(b + 32);
    h->seed2 = get64(b + 40);
    h->num_vertices = get64(b + 48);
    h->num_edges = get64(b + 56);
    h->data_checksum = get64(b + 72);
    h->num_roots = get32(b + 80);
    if (h->num_vertices > ((uint64_t)1 << 32)) {
        snprintf(err, errlen,
                 "the graph file's header is invalid: %llu vertices (at most 2^32 supported); %s",
                 (unsigned long long)h->num_vertices, REGEN);
        return -1;
    }
    if (h->flags & 1u) {
        if (h->scale > 32 || (h->edgefactor != 0 &&
                              ((uint64_t)1 << h->scale) > UINT64_MAX / h->edgefactor) ||
            ((uint64_t)1 << h->scale) != h->num_vertices ||
            ((uint64_t)h->edgefactor << h->scale) != h->num_edges) {
            snprintf(err, errlen,
                     "the graph file's header is invalid: SCALE %u edgefactor %u do not match the "
                     "counts %llu vertices, %llu edges; %s",
                     h->scale, h->edgefactor, (unsigned long long)h->num_vertices,
                     (unsigned long long)h->num_edges, REGEN);
            return -1;
        }
    }
    if (h->num_roots > GG_MAX_ROOTS) {
        snprintf(err, errlen, "the graph file's header is invalid: %u roots (at most 64); %s",
                 h->num_roots, REGEN);
        return -1;
    }
    for (uint32_t i = 0; i < h->num_roots; i++) {
        h->roots[i] = get64(b + 88 + 8 * i);
        if (h->roots[i] >= h->num_vertices) {
            snprintf(err, errlen,
                     "the graph file's header is invalid: root %llu is not a vertex (graph has "
                     "%llu); %s",
                     (unsigned long long)h->roots[i], (unsigned long long)h->num_vertices, REGEN);
            return -1;
        }
    }
    if (h->num_edges > (UINT64_MAX - GG_HEADER_LEN) / GG_RECORD_LEN) {
        snprintf(err, errlen, "the graph file's header is invalid: absurd edge count %llu; %s",
                 (unsigned long long)h->num_edges, REGEN);
        return -1;
    }
    uint64_t expected = GG_HEADER_LEN + GG_RECORD_LEN * h->num_edges;
    if (file_len < expected) {
        snprintf(err, errlen,
                 "the graph file is truncated: its header promises %llu bytes but it has %llu (an "
                 "interrupted write or copy?); %s",
                 (unsigned long long)expected, (unsigned long long)file_len, REGEN);
        return -1;
    }
    if (file_len > expected) {
        snprintf(err, errlen,
                 "the graph file has %llu bytes but its header's counts imply %llu: the counts "
                 "are inconsistent with the size; %s",
                 (unsigned long long)file_len, (unsigned long long)expected, REGEN);
        return -1;
    }
    return 0;
}

void gg_encode_header(const gg_header *h, uint8_t out[GG_HEADER_LEN]) {
    memset(out, 0, GG_HEADER_LEN);
    memcpy(out, "GOSGRAPH", 8);
    put32(out + 8, 1);
    put32(out + 12, GG_HEADER_LEN);
    put32(out + 16, GG_RECORD_LEN);
    put32(out + 20, h->flags);
    if (h->flags & 1u) {
        put32(out + 24, h->scale);
        put32(out + 28, h->edgefactor);
        put64(out + 32, h->seed1);
        put64(out + 40, h->seed2);
    }
    put64(out + 48, h->num_vertices);
    put64(out + 56, h->num_edges);
    put64(out + 64, GG_HEADER_LEN);
    put64(out + 72, h->data_checksum);
    put32(out + 80, h->num_roots);
    for (uint32_t i = 0; i < h->num_roots && i < GG_MAX_ROOTS; i++) put64(out + 88 + 8 * i, h->roots[i]);
    put64(out + 1016, gg_checksum64(out, 1016));
}

gg_record gg_decode_record(const uint8_t *p) {
    gg_record r;
    uint32_t wbits = get32(p + 8);
    r.u = get32(p);
    r.v = get32(p + 4);
    memcpy(&r.w, &wbits, 4);
    return r;
}

void gg_encode_record(uint8_t *p, gg_record r) {
    uint32_t wbits;
    memcpy(&wbits, &r.w, 4);
    put32(p, r.u);
    put32(p + 4, r.v);
    put32(p + 8, wbits);
}

int gg_check_record(gg_record r, uint64_t index, uint64_t num_vertices, char *err, size_t errlen) {
    if (r.u >= num_vertices || r.v >= num_vertices) {
        snprintf(err, errlen,
                 "the graph file holds an invalid edge: record %llu joins %u and %u, outside "
                 "0..%llu; %s",
                 (unsigned long long)index, r.u, r.v, (unsigned long long)num_vertices, REGEN);
        return -1;
    }
    if (isnan(r.w) || r.w < 0.0f) {
        snprintf(err, errlen,
                 "the graph file holds an invalid edge: record %llu has weight %g (weights must "
                 "be non-negative numbers); %s",
                 (unsigned long long)index, (double)r.w, REGEN);
        return -1;
    }
    return 0;
}
