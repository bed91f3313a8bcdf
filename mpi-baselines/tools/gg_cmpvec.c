/* gg_cmpvec: compares result vectors.
 *   gg_cmpvec level A B          N x i64: must be identical
 *   gg_cmpvec dist A B [RTOL]    N x f32: same reached set (+inf), |a-b| <= RTOL*max(|a|,|b|)
 *                                (default RTOL 1e-6)
 * Exit 0 when equal, 1 when not (first differences are printed), 2 on usage/IO errors. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "gg_cmpvec: cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    unsigned char *b = malloc((size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "gg_cmpvec: cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

int main(int argc, char **argv) {
    if (argc < 4 || (strcmp(argv[1], "level") && strcmp(argv[1], "dist"))) {
        fprintf(stderr, "usage: gg_cmpvec level|dist A B [RTOL]\n");
        return 2;
    }
    int is_level = !strcmp(argv[1], "level");
    double rtol = argc > 4 ? atof(argv[4]) : 1e-6;
    size_t la, lb;
    unsigned char *a = slurp(argv[2], &la), *b = slurp(argv[3], &lb);
    size_t es = is_level ? 8 : 4;
    if (la != lb || la % es) {
        printf("size mismatch: %s has %zu bytes, %s has %zu\n", argv[2], la, argv[3], lb);
        return 1;
    }
    size_t n = la / es, bad = 0;
    double maxrel = 0;
    for (size_t i = 0; i < n; i++) {
        int diff;
        if (is_level) {
            int64_t x, y;
            memcpy(&x, a + 8 * i, 8);
            memcpy(&y, b + 8 * i, 8);
            diff = x != y;
            if (diff && bad < 5) printf("vertex %zu: level %lld vs %lld\n", i, (long long)x, (long long)y);
        } else {
            float x, y;
            memcpy(&x, a + 4 * i, 4);
            memcpy(&y, b + 4 * i, 4);
            if (isinf(x) || isinf(y) || isnan(x) || isnan(y)) {
                diff = !(x == y);
            } else {
                double m = fmax(fabs((double)x), fabs((double)y));
                double rel = m > 0 ? fabs((double)x - (double)y) / m : 0;
                if (rel > maxrel) maxrel = rel;
                diff = rel > rtol;
            }
            if (diff && bad < 5) printf("vertex %zu: dist %.9g vs %.9g\n", i, (double)x, (double)y);
        }
        bad += (size_t)diff;
    }
    if (bad) printf("%zu of %zu entries differ\n", bad, n);
    else if (!is_level) printf("equal (%zu entries, max relative difference %.3g)\n", n, maxrel);
    else printf("equal (%zu entries)\n", n);
    free(a);
    free(b);
    return bad ? 1 : 0;
}
