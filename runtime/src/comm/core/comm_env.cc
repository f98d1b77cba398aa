#include "comm/core/comm_env.h"

#include <unistd.h>

#include <cstdlib>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/socket.h"
#include "contract/env_names.h"
#include "dlp/status.h"

namespace dlp::runtime {
namespace {

namespace names = contract::env;

const char* Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

absl::StatusOr<int> IntEnv(const char* name, std::optional<int> fallback) {
  const char* v = Env(name);
  if (v == nullptr) {
    if (fallback) return *fallback;
    return absl::FailedPreconditionError(
        absl::StrCat(name, " is not set (start the ranks with dlp-run)"));
  }
  int value;
  if (!absl::SimpleAtoi(v, &value)) {
    return absl::InvalidArgumentError(absl::StrCat(name, "='", v, "' is not an integer"));
  }
  return value;
}

}  // namespace

absl::StatusOr<CommEnv> ReadCommEnv(int instance) {
  CommEnv env;
  CommOptions& o = env.options;
  DLP_ASSIGN_OR_RETURN(o.rank, IntEnv(names::kRank, std::nullopt));
  DLP_ASSIGN_OR_RETURN(o.size, IntEnv(names::kWorldSize, std::nullopt));
  if (o.size < 1 || o.rank < 0 || o.rank >= o.size) {
    return absl::InvalidArgumentError(
        absl::StrCat("RANK=", o.rank, " is not within WORLD_SIZE=", o.size));
  }
  DLP_ASSIGN_OR_RETURN(int round, IntEnv(names::kRdzvRound, 0));
  o.key_prefix = absl::StrCat("r", round, "/comm", instance);
  if (const char* id = Env(names::kHostId)) {
    o.host_id = id;
  } else {
    char name[256] = {};
    gethostname(name, sizeof(name) - 1);
    o.host_id = name;
  }
  if (const char* t = Env(names::kCommTransport)) {
    o.transport = t;
    if (o.transport != "tcp" && o.transport != "shm" && o.transport != "auto") {
      return absl::InvalidArgumentError(
          absl::StrCat("DLP_COMM_TRANSPORT='", t, "': expected tcp, shm or auto"));
    }
  }
  if (const char* a = Env(names::kCommAlgo)) o.algo = a;  // checked when joining
  DLP_ASSIGN_OR_RETURN(o.local_size, IntEnv(names::kLocalWorldSize, 1));
  DLP_ASSIGN_OR_RETURN(o.channels, IntEnv(names::kCommChannels, 0));
  if (o.channels < 0 || o.channels > kMaxChannels) {
    return absl::InvalidArgumentError(
        absl::StrCat("DLP_COMM_CHANNELS=", o.channels, ": expected 1 to ", kMaxChannels));
  }
  DLP_ASSIGN_OR_RETURN(int timeout_s, IntEnv(names::kCommTimeout, 60));
  if (timeout_s <= 0) return absl::InvalidArgumentError("DLP_COMM_TIMEOUT must be positive");
  o.timeout = absl::Seconds(timeout_s);

  const char* store = Env(names::kStoreAddr);
  if (store == nullptr) {
    if (o.size > 1) {
      return absl::FailedPreconditionError(
          "DLP_STORE_ADDR is not set (start the ranks with dlp-run)");
    }
    return env;
  }
  DLP_ASSIGN_OR_RETURN(HostPort hp, ParseHostPort(store));
  DLP_ASSIGN_OR_RETURN(o.secret, JobSecret::FromEnvironment());
  env.store_host = hp.host;
  env.store_port = hp.port;
  if (const char* a = Env(names::kAdvertiseAddr)) {
    o.advertise_host = a;
  } else {
    DLP_ASSIGN_OR_RETURN(o.advertise_host, LocalAddressFor(hp.host, hp.port));
  }
  return env;
}

}  // namespace dlp::runtime
