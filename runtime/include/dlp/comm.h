/* dlp collectives: the C interface (C99 and C++), installed with libdlp.
 *
 * Ranks started by dlp-run join with dlp_comm_init_from_env(). Every function
 * returns 0 on success and non-zero on error; dlp_last_error() then holds a
 * thread-local message. A communicator is used by one thread at a time. */
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
void dlp_comm_destroy(dlp_comm* c);
/* Thread-local message after a non-zero return. */
const char* dlp_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* DLP_COMM_H_ */
