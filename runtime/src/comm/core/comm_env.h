// The communicator's view of the rank environment: how a rank reads what
// dlp-run (or any launcher) gave it. The names are contract/env_names.h's;
// see docs/runtime-contract.md, "Rank environment".
//
//   RANK               this rank, 0 ≤ RANK < WORLD_SIZE (required)
//   WORLD_SIZE         number of ranks (required)
//   LOCAL_RANK         rank among the ranks on this host (default 0)
//   LOCAL_WORLD_SIZE   ranks on this host (default 1)
//   DLP_STORE_ADDR     host:port of the rendezvous store (required when WORLD_SIZE > 1)
//   DLP_RDZV_SECRET    the job's secret, 64 hex digits, proved to the store and
//                      to the other ranks (required with DLP_STORE_ADDR)
//   DLP_RDZV_ROUND     rendezvous round, bumped by the launcher on every restart
//                      (default 0); all keys of a round live under "r<round>/"
//   DLP_HOST_ID        ranks with equal ids share a host (and its /dev/shm and pid
//                      namespace) and may use shared memory (default: the hostname)
//   DLP_COMM_TRANSPORT tcp | shm | auto (default auto: shm within a host, TCP between)
//   DLP_COMM_TIMEOUT   seconds without progress before a collective fails (default 60)
//   DLP_COMM_CHANNELS  parallel rings that split large allreduces, each driven by
//                      its own thread (default: within one host, the cores per
//                      local rank, at most 4; between hosts 1)
//   DLP_COMM_ALGO      allreduce algorithm: auto | ring | direct | oneshot | doubling
//                      | hierarchical
//                      (default auto; see algo_select.h)
//   DLP_ADVERTISE_ADDR address other ranks use to reach this one over TCP
//                      (default: the local address that routes to the store)
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/job_secret.h"

namespace dlp::runtime {

inline constexpr int kMaxChannels = 8;

struct CommOptions {
  int rank = 0;
  int size = 1;
  std::string host_id = "localhost";
  // Namespace of this communicator's rendezvous keys, e.g. "r0/comm0".
  std::string key_prefix = "r0/comm0";
  std::string transport = "auto";  // tcp | shm | auto
  std::string advertise_host = "127.0.0.1";
  absl::Duration timeout = absl::Seconds(60);
  int local_size = 1;  // ranks on this host
  int channels = 0;    // parallel rings; 0 = chosen from the cores per local rank
  std::string algo = "auto";  // auto | ring | direct | oneshot (algo_select.h)
  // Proved on every TCP link to another rank (link_handshake.h); links to a
  // peer that cannot prove it are refused.
  JobSecret secret;
};

struct CommEnv {
  CommOptions options;
  std::string store_host;  // empty when WORLD_SIZE is 1 and no store was given
  int store_port = 0;
};

// Reads and checks the variables above. `instance` numbers the communicators
// a process creates, so that each gets its own keys.
absl::StatusOr<CommEnv> ReadCommEnv(int instance);

}  // namespace dlp::runtime
