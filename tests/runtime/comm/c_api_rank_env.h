// The rank environment dlp-run gives, for tests of the C interface that join
// with dlp_comm_init_from_env() in ranks forked by rank_harness.h.
#pragma once

#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "dlp/comm.h"
#include "runtime/rank_harness.h"

namespace dlp::runtime::testing {

inline void SetRankEnv(int rank, int size, int port, const char* transport) {
  setenv("RANK", std::to_string(rank).c_str(), 1);
  setenv("WORLD_SIZE", std::to_string(size).c_str(), 1);
  setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
  setenv("LOCAL_WORLD_SIZE", std::to_string(size).c_str(), 1);
  setenv("DLP_STORE_ADDR", ("127.0.0.1:" + std::to_string(port)).c_str(), 1);
  setenv("DLP_RDZV_SECRET", TestSecret().Hex().c_str(), 1);
  setenv("DLP_RDZV_ROUND", "2", 1);
  setenv("DLP_HOST_ID", "test-host", 1);
  setenv("DLP_COMM_TRANSPORT", transport, 1);
  setenv("DLP_COMM_TIMEOUT", "5", 1);
}

// `what` failed: with dlp_last_error()'s message.
inline absl::Status Fail(const std::string& what) {
  return absl::InternalError(absl::StrCat(what, ": ", dlp_last_error()));
}

// Joins as one process, as run without dlp-run: no rendezvous store.
inline absl::Status InitSingleRank(dlp_comm** c) {
  setenv("RANK", "0", 1);
  setenv("WORLD_SIZE", "1", 1);
  unsetenv("DLP_STORE_ADDR");
  return dlp_comm_init_from_env(c) == 0 ? absl::OkStatus() : Fail("init");
}

}  // namespace dlp::runtime::testing
