/* Aggregated point-to-point messaging for phase-structured MPI kernels.
 *
 * Fixed-size records are appended to a per-destination buffer; a full buffer
 * is sent with MPI_Isend, and agg_end_phase() sends every partial buffer
 * marked as the sender's last message of the phase, then handles incoming
 * messages until the last message from every other rank has arrived. MPI's
 * non-overtaking rule (same sender, same communicator, receives matching any
 * tag) guarantees that the marked message comes after the sender's data.
 * Records for the calling rank are handled at once, without MPI.
 *
 * A phase must be followed by a collective (e.g. MPI_Allreduce) before the
 * next phase starts sending, so that no message of phase k+1 can reach a
 * rank still waiting in phase k. Handlers must not call agg_send.
 *
 * A rank waiting for messages polls `spin_limit` times without progress, then
 * calls sched_yield() between polls (matters when ranks share cores).
 */
#ifndef GG_AGG_H
#define GG_AGG_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef void (*agg_handler)(void *ctx, const void *record);

typedef struct {
    MPI_Comm comm;
    int rank, nranks;
    size_t rec_size, buf_bytes; /* buf_bytes is a multiple of rec_size */
    agg_handler handler;
    void *ctx;
    /* send side: a pool of buffers; cur[d] is the pool index being filled for d, or -1 */
    int npool;
    uint8_t *pool;
    MPI_Request *pool_req;
    int *free_list, nfree;
    int *cur;
    size_t *fill;
    int *done_idx; /* scratch for MPI_Testsome */
    /* receive side */
    int nrecv;
    uint8_t *rbuf;
    MPI_Request *rreq;
    int ends_seen;
    /* idle polls before each sched_yield() while waiting (UINT_MAX: never yield) */
    unsigned spin_limit;
    /* statistics */
    uint64_t msgs_sent, bytes_sent;
} agg_t;

/* Creates an aggregator; buf_bytes is rounded down to whole records (at least one). */
int agg_init(agg_t *a, MPI_Comm comm, size_t rec_size, size_t buf_bytes, agg_handler h, void *ctx);
void agg_free(agg_t *a);
/* Changes the handler/context (between phases only). */
void agg_set_handler(agg_t *a, agg_handler h, void *ctx);
/* Queues one record for rank `dest` (handled at once when dest is this rank). */
void agg_send(agg_t *a, int dest, const void *record);
/* Handles whatever has arrived, without blocking. */
void agg_poll(agg_t *a);
/* Ends the phase: flushes, then handles messages until every rank's last one arrived. */
void agg_end_phase(agg_t *a);

#endif
