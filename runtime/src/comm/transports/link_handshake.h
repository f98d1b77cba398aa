// Opening TCP links between ranks: each side proves the job's secret to the
// other (common/peer_proof.h, ProofPurpose::kCommLink) before the connecting
// rank's word for which rank it is counts. A connection that cannot prove the
// secret (another user who found the port) is dropped and the accepting rank
// goes on waiting for its peer, so a stranger can neither feed a collective
// nor read one.
//
// A rank both connects (to its next rank, or its lower partners) and accepts
// (from its previous rank, or its higher partners), and the accepting side
// speaks first. Done link by link, every rank of a ring would wait for its
// next rank's challenge while that rank waits for its own next: so the
// handshake goes in steps, and the caller takes every link through a step
// before any link's next step:
//
//   1. OutgoingLink::Connect   each outgoing link (completes against the backlog)
//   2. IncomingLinks::AcceptAll   accept and challenge the incoming links
//   3. OutgoingLink::Answer    answer each challenge, saying which rank this is
//   4. IncomingLinks::Finish   check each answer, confirm; drop strangers
//   5. OutgoingLink::Finish    check each confirmation
//
// Each step waits only for an earlier step of another rank, so no two ranks
// ever wait for each other.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "comm/core/comm_env.h"
#include "common/peer_proof.h"
#include "common/socket.h"

namespace dlp::runtime {

// A link this rank opens to rank `peer`.
class OutgoingLink {
 public:
  static absl::StatusOr<OutgoingLink> Connect(const CommOptions& options, const std::string& addr,
                                              int peer, absl::Time deadline);
  absl::Status Answer(absl::Time deadline);
  // The link, once the peer proved the secret; PermissionDenied otherwise.
  absl::StatusOr<Fd> Finish(absl::Time deadline);
  int peer() const { return peer_; }

 private:
  OutgoingLink(const CommOptions& options, Fd fd, std::string addr, int peer)
      : options_(&options), fd_(std::move(fd)), addr_(std::move(addr)), peer_(peer) {}
  absl::Status Refused(const absl::Status& why) const;
  const CommOptions* options_;
  Fd fd_;
  std::string addr_;
  int peer_;
  std::optional<ProofAnswer> answer_;
};

// The `count` links this rank accepts on `listen_fd`.
class IncomingLinks {
 public:
  IncomingLinks(const CommOptions& options, int listen_fd, int count)
      : options_(options), listen_fd_(listen_fd), count_(count) {}
  // DeadlineExceeded when fewer than `count` connected by `deadline`.
  absl::Status AcceptAll(absl::Time deadline);
  // The links that proved the secret, each with the rank it says it is.
  absl::StatusOr<std::vector<std::pair<Fd, int>>> Finish(absl::Time deadline);

 private:
  struct Pending {
    Fd fd;
    ProofChallenge challenge;
  };
  absl::Status AcceptOne(absl::Time deadline);
  const CommOptions& options_;
  int listen_fd_;
  int count_;
  std::vector<Pending> pending_;
};

}  // namespace dlp::runtime
