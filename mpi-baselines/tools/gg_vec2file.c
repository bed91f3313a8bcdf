/* gg_vec2file: builds a gossamer-graph file from Graph500 reference vectors
 * (scaleS.edges: u64 src, u64 dst per edge; scaleS.weights: f32 per edge;
 * scaleS.roots: decimal ids, one per line), with both checksums.
 *
 *   gg_vec2file --scale S --edges E --weights W [--roots R] -o OUT
 *   gg_vec2file --vertices N --edges E --weights W [--roots R] -o OUT   (no Graph500 params)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/ggfile.h"

static void die(const char *fmt, const char *arg) {
    fprintf(stderr, "gg_vec2file: error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    exit(1);
}

static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open %s", path);
    if (fseek(f, 0, SEEK_END) != 0) die("cannot seek in %s", path);
    long n = ftell(f);
    if (n < 0) die("cannot size %s", path);
    rewind(f);
    uint8_t *b = malloc((size_t)n + 1);
    if (!b) die("out of memory reading %s", path);
    if (fread(b, 1, (size_t)n, f) != (size_t)n) die("short read from %s", path);
    fclose(f);
    b[n] = 0;
    *len = (size_t)n;
    return b;
}

static uint64_t le64(const uint8_t *p) {
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--) x = (x << 8) | p[i];
    return x;
}

int main(int argc, char **argv) {
    const char *edges = NULL, *weights = NULL, *roots = NULL, *out = NULL;
    long scale = -1;
    unsigned long long vertices = 0;
    int have_vertices = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: gg_vec2file (--scale S | --vertices N) --edges E --weights W [--roots R] -o OUT\n");
            return 0;
        }
        if (!v) die("option %s needs a value", a);
        i++;
        if (!strcmp(a, "--scale")) scale = strtol(v, NULL, 10);
        else if (!strcmp(a, "--vertices")) { vertices = strtoull(v, NULL, 10); have_vertices = 1; }
        else if (!strcmp(a, "--edges")) edges = v;
        else if (!strcmp(a, "--weights")) weights = v;
        else if (!strcmp(a, "--roots")) roots = v;
        else if (!strcmp(a, "-o") || !strcmp(a, "--output")) out = v;
        else die("unknown option %s (see --help)", a);
    }
    if (!edges || !weights || !out || (scale < 0 && !have_vertices))
        die("%s", "need --edges, --weights, -o and --scale or --vertices (see --help)");
    if (scale > 32) die("%s", "--scale must be at most 32");
    size_t elen, wlen;
    uint8_t *eb = slurp(edges, &elen), *wb = slurp(weights, &wlen);
    if (elen % 16) die("%s: size is not a multiple of 16 bytes (u64 src, u64 dst per edge)", edges);
    size_t m = elen / 16;
    if (wlen != 4 * m) die("%s: expected one f32 per edge of the edges file", weights);
    gg_header h;
    memset(&h, 0, sizeof h);
    if (scale >= 0) {
        h.flags = 1;
        h.scale = (uint32_t)scale;
        h.edgefactor = 16;
        h.seed1 = 2;
        h.seed2 = 3;
        h.num_vertices = (uint64_t)1 << scale;
        if ((uint64_t)m != (uint64_t)16 << scale) die("%s: edge count is not 16 * 2^scale", edges);
    } else {
        h.num_vertices = vertices;
    }
    h.num_edges = m;
    size_t dlen = m * GG_RECORD_LEN;
    uint8_t *data = malloc(dlen ? dlen : 1);
    if (!data) die("%s", "out of memory");
    char err[512];
    for (size_t i = 0; i < m; i++) {
        uint64_t u = le64(eb + 16 * i), v = le64(eb + 16 * i + 8);
        float w;
        memcpy(&w, wb + 4 * i, 4);
        if (u >= h.num_vertices || v >= h.num_vertices) die("%s: a vertex id is out of range", edges);
        gg_record r = {(uint32_t)u, (uint32_t)v, w};
        if (gg_check_record(r, i, h.num_vertices, err, sizeof err)) die("%s", err);
        gg_encode_record(data + GG_RECORD_LEN * i, r);
    }
    if (roots) {
        size_t rlen;
        char *rb = (char *)slurp(roots, &rlen), *save = NULL;
        for (char *t = strtok_r(rb, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
            if (h.num_roots == GG_MAX_ROOTS) die("%s: more than 64 roots", roots);
            char *end;
            unsigned long long r = strtoull(t, &end, 10);
            if (*end || r >= h.num_vertices) die("%s: a root is not a vertex id", roots);
            h.roots[h.num_roots++] = r;
        }
        free(rb);
    }
    h.data_checksum = gg_checksum64(data, dlen);
    uint8_t header[GG_HEADER_LEN];
    gg_encode_header(&h, header);
    size_t olen = strlen(out);
    char *tmp = malloc(olen + 5);
    if (!tmp) die("%s", "out of memory");
    memcpy(tmp, out, olen);
    memcpy(tmp + olen, ".tmp", 5);
    FILE *f = fopen(tmp, "wb");
    if (!f) die("cannot create %s", tmp);
    if (fwrite(header, 1, GG_HEADER_LEN, f) != GG_HEADER_LEN || fwrite(data, 1, dlen, f) != dlen ||
        fclose(f) != 0) {
        remove(tmp);
        die("cannot write %s", tmp);
    }
    if (rename(tmp, out) != 0) die("cannot rename to %s", out);
    printf("wrote %s: %llu vertices, %llu edges, %u roots, data checksum 0x%016llx\n", out,
           (unsigned long long)h.num_vertices, (unsigned long long)h.num_edges, h.num_roots,
           (unsigned long long)h.data_checksum);
    free(tmp);
    free(data);
    free(eb);
    free(wb);
    return 0;
}
