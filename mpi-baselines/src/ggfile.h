/* The gossamer-graph binary graph file (format v1), read and written from C.
 *
 * Layout (all little-endian; see graph-core/src/io/file/mod.rs for the master copy):
 *   0 magic "GOSGRAPH" | 8 version u32 (1) | 12 header length u32 (1024)
 *   16 record length u32 (12) | 20 flags u32 (bit 0: Graph500 params present)
 *   24 scale u32 | 28 edgefactor u32 | 32 seed1 u64 | 40 seed2 u64
 *   48 vertices u64 (<= 2^32) | 56 edges u64 | 64 data offset u64 (1024)
 *   72 data checksum u64 | 80 root count u32 (<= 64) | 84 reserved
 *   88 roots 64 x u64 | 600 reserved | 1016 header checksum u64
 *   1024.. records: u32 u, u32 v, f32 w
 */
#ifndef GG_FILE_H
#define GG_FILE_H

#include <stddef.h>
#include <stdint.h>

#define GG_HEADER_LEN 1024u
#define GG_RECORD_LEN 12u
#define GG_MAX_ROOTS 64u
#define GG_CHECKSUM_CHUNK ((size_t)1 << 20)

typedef struct {
    uint32_t flags;
    uint32_t scale, edgefactor;
    uint64_t seed1, seed2;
    uint64_t num_vertices, num_edges;
    uint64_t data_checksum;
    uint32_t num_roots;
    uint64_t roots[GG_MAX_ROOTS];
} gg_header;

/* One edge record, decoded. */
typedef struct {
    uint32_t u, v;
    float w;
} gg_record;

/* checksum64 of a whole buffer (same value as graph_core::io::file::checksum64). */
uint64_t gg_checksum64(const uint8_t *data, size_t len);
/* Digest of one 1 MiB chunk (the last may be shorter) at chunk position `index`. */
uint64_t gg_chunk_digest(const uint8_t *data, size_t len, uint64_t index);
/* Folds chunk digests (in order) of a buffer of `total_len` bytes into checksum64.
 * For total_len == 0 pass the single digest gg_chunk_digest(NULL, 0, 0). */
uint64_t gg_checksum_fold(const uint64_t *digests, size_t ndigests, uint64_t total_len);
/* Number of chunk digests checksum64 folds for `len` bytes (>= 1). */
size_t gg_checksum_nchunks(uint64_t len);

/* Parses and checks a 1024-byte header; `file_len` is the file size.
 * Returns 0, or -1 with a message (what is wrong and what to do) in err. */
int gg_parse_header(const uint8_t *bytes, size_t nbytes, uint64_t file_len, gg_header *h,
                    char *err, size_t errlen);
/* Encodes a header (computes the header checksum). */
void gg_encode_header(const gg_header *h, uint8_t out[GG_HEADER_LEN]);

/* Decodes record i of a little-endian record buffer. */
gg_record gg_decode_record(const uint8_t *p);
/* Encodes one record (12 bytes). */
void gg_encode_record(uint8_t *p, gg_record r);
/* Checks one record against the vertex count; returns 0 or -1 with a message. */
int gg_check_record(gg_record r, uint64_t index, uint64_t num_vertices, char *err, size_t errlen);

#endif
