/* gg_checksum: prints checksum64 (graph_core::io::file::checksum64) of a file's bytes, or with
 * --graph checks a graph file's header and data checksums like the Rust reader does.
 *   gg_checksum FILE            checksum of the whole file
 *   gg_checksum --graph FILE    "header ok", "data checksum 0x... ok"; exit 1 on any mismatch
 *   gg_checksum --self-test     compares with known answers from the Rust implementation */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/ggfile.h"

/* Known answers computed by graph_core::io::file::checksum64 (Rust) over the pattern
 * byte i = (i * 31) % 251, for several prefix lengths (block tails, chunk borders). */
static int self_test(void) {
    static const struct { size_t len; uint64_t sum; } kat[] = {
        {0, 0x7ffe08503ccd548dull},       {1, 0x476c5b5ba3d80ab6ull},
        {7, 0xae0b68915f1e4be9ull},       {8, 0xe5b201d076552267ull},
        {31, 0x03bea928c8868680ull},      {32, 0x45206f08a836e7a5ull},
        {33, 0xf0bc283e14601b7cull},      {1000, 0x740dec71d58077d6ull},
        {1048576, 0xe46e47f5831dbe30ull}, {1048577, 0xe770ec576788c3dcull},
        {3145805, 0x0fbf538b3e07c70eull},
    };
    size_t n = 3145805;
    unsigned char *pat = malloc(n);
    if (!pat) return 2;
    for (size_t i = 0; i < n; i++) pat[i] = (unsigned char)(i * 31 % 251);
    int bad = 0;
    for (size_t k = 0; k < sizeof kat / sizeof kat[0]; k++) {
        uint64_t s = gg_checksum64(pat, kat[k].len);
        if (s != kat[k].sum) {
            printf("checksum64 of %zu pattern bytes: 0x%016llx, Rust says 0x%016llx\n", kat[k].len,
                   (unsigned long long)s, (unsigned long long)kat[k].sum);
            bad = 1;
        }
    }
    free(pat);
    if (!bad) printf("checksum64 matches the Rust known answers\n");
    return bad;
}

int main(int argc, char **argv) {
    if (argc == 2 && !strcmp(argv[1], "--self-test")) return self_test();
    int graph = argc == 3 && !strcmp(argv[1], "--graph");
    if (argc != 2 && !graph) {
        fprintf(stderr, "usage: gg_checksum [--graph] FILE\n");
        return 2;
    }
    const char *path = argv[argc - 1];
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "gg_checksum: cannot open %s\n", path);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    unsigned char *b = malloc((size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "gg_checksum: cannot read %s\n", path);
        return 2;
    }
    fclose(f);
    if (!graph) {
        printf("0x%016llx\n", (unsigned long long)gg_checksum64(b, (size_t)n));
        return 0;
    }
    gg_header h;
    char err[512];
    if (gg_parse_header(b, (size_t)n, (uint64_t)n, &h, err, sizeof err)) {
        printf("%s: %s\n", path, err);
        return 1;
    }
    uint64_t s = gg_checksum64(b + GG_HEADER_LEN, (size_t)n - GG_HEADER_LEN);
    printf("header ok: %llu vertices, %llu edges, %u roots\n", (unsigned long long)h.num_vertices,
           (unsigned long long)h.num_edges, h.num_roots);
    printf("data checksum 0x%016llx %s\n", (unsigned long long)s, s == h.data_checksum ? "ok" : "MISMATCH");
    free(b);
    return s == h.data_checksum ? 0 : 1;
}
