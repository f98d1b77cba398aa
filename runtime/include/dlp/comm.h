/* dlp collectives: the C interface (C99 and C++), installed with libdlp.
 *
 * Ranks started by dlp-run join with dlp_comm_init_from_env(). Every function
 * returns 0 on success and otherwise a status code numbered as gRPC's and
 * absl's are (3 invalid argument, 4 deadline exceeded, 8 resource exhausted,
 * 9 failed precondition, 13 internal, 14 unavailable: a peer left);
 * dlp_last_error() then holds a thread-local message. A communicator is used
 * by one thread at a time. */
#ifndef DLP_COMM_H_
#define DLP_COMM_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dlp_comm dlp_comm;
typedef enum { DLP_FLOAT32, DLP_FLOAT64, DLP_FLOAT16, DLP_BFLOAT16, DLP_INT32, DLP_INT64 } dlp_dtype;
typedef enum { DLP_SUM, DLP_AVG, DLP_MIN, DLP_MAX } dlp_op;

/* Joins the ranks that dlp-run started (RANK, WORLD_SIZE, LOCAL_RANK and the
 * rendezvous store in DLP_STORE_ADDR). */
int dlp_comm_init_from_env(dlp_comm** out);
int dlp_comm_rank(const dlp_comm* c);
int dlp_comm_size(const dlp_comm* c);
/* send == recv: in place. Buffers may be GPU memory when built with CUDA. */
int dlp_allreduce(dlp_comm* c, const void* send, void* recv, size_t count, dlp_dtype t,
                  dlp_op op);
int dlp_broadcast(dlp_comm* c, void* buf, size_t count, dlp_dtype t, int root);
int dlp_allgather(dlp_comm* c, const void* send, void* recv, size_t count_per_rank,
                  dlp_dtype t);
/* send holds size * count_per_rank elements, rank r's block at r * count_per_rank;
 * recv gets this rank's block reduced over all ranks (count_per_rank elements).
 * recv == send + rank * count_per_rank: in place. */
int dlp_reduce_scatter(dlp_comm* c, const void* send, void* recv, size_t count_per_rank,
                       dlp_dtype t, dlp_op op);
int dlp_barrier(dlp_comm* c);

/* Shared memory of the ranks on one host, as MPI_Win_allocate_shared: every
 * rank calls it (in the same order as the collectives), giving the bytes of
 * its own block (they may differ, and be 0); each rank can then read and write
 * every rank's block in place, at the address dlp_shared_block gives (64-byte
 * aligned). Nothing is copied. Order the accesses with dlp_barrier(): what a
 * rank wrote before it, every rank sees after it. Fails unless every rank is
 * on this host. An allreduce of 1 MiB or more whose send and receive buffers
 * lie in shared blocks on every rank reduces straight from and into them,
 * staging nothing. The memory is released once both dlp_shared_free and
 * dlp_comm_destroy were called (the communicator keeps it mapped for that). */
typedef struct dlp_shared dlp_shared;
int dlp_shared_alloc(dlp_comm* c, size_t bytes, dlp_shared** out);
/* Rank `rank`'s block, its bytes in *bytes when not null; null for a rank
 * outside the group. */
void* dlp_shared_block(const dlp_shared* s, int rank, size_t* bytes);
void dlp_shared_free(dlp_shared* s);
void dlp_comm_destroy(dlp_comm* c);
/* Thread-local message after a non-zero return. */
const char* dlp_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* DLP_COMM_H_ */
