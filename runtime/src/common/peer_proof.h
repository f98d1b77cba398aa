// The handshake that opens every connection to the rendezvous store and
// between two ranks: each side proves it holds the job's secret (job_secret.h)
// without sending it, by an HMAC-SHA256 over both sides' fresh nonces.
//
//   accepting side -> connecting side   "dlpP" nonce_a                      (36 bytes)
//   connecting -> accepting             nonce_c HMAC(secret, "connect" ...)  (64 bytes)
//   accepting -> connecting             HMAC(secret, "accept" ...)           (32 bytes)
//
// Each HMAC covers the role, the purpose (the store or a collectives link:
// a proof for one is no proof for the other) and both nonces, so a proof can
// be neither replayed nor reflected. The accepting side closes a connection
// whose proof is wrong before reading anything else from it; the connecting
// side trusts nothing the other sends until its proof checked.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/job_secret.h"

namespace dlp::runtime {

// What the proof is for; part of every HMAC.
enum class ProofPurpose { kStore, kCommLink };

inline constexpr size_t kProofChallengeBytes = 36;
inline constexpr size_t kProofAnswerBytes = 64;
inline constexpr size_t kProofConfirmBytes = 32;

// The accepting side's half, for an event loop that does its own I/O (the
// store's server). Not thread-safe.
class ProofChallenge {
 public:
  static absl::StatusOr<ProofChallenge> Start(const JobSecret& secret, ProofPurpose purpose);
  // The kProofChallengeBytes to send first.
  const std::string& challenge() const { return challenge_; }
  // Checks the connecting side's kProofAnswerBytes; the kProofConfirmBytes
  // to send back when they prove the secret, or nothing when they do not.
  std::optional<std::string> Check(std::string_view answer) const;

 private:
  ProofChallenge(const JobSecret& secret, ProofPurpose purpose, std::string nonce);
  std::string key_;
  ProofPurpose purpose_;
  std::string nonce_;
  std::string challenge_;
};

// The connecting side's half, in two steps, for callers that must send every
// answer before they wait for any confirmation (the collectives' ring, where
// each rank both connects and accepts: comm/transports/link_handshake.h).
class ProofAnswer {
 public:
  // Answers the accepting side's kProofChallengeBytes; PermissionDenied when
  // they are no dlp challenge.
  static absl::StatusOr<ProofAnswer> Answer(const JobSecret& secret, ProofPurpose purpose,
                                            std::string_view challenge);
  // The kProofAnswerBytes to send.
  const std::string& answer() const { return answer_; }
  // Whether the accepting side's kProofConfirmBytes prove the secret.
  bool Confirms(std::string_view confirm) const;

 private:
  ProofAnswer(std::string expected, std::string answer)
      : expected_(std::move(expected)), answer_(std::move(answer)) {}
  std::string expected_;  // the confirmation a holder of the secret sends
  std::string answer_;
};

// Both halves over a blocking or non-blocking socket, waiting at most until
// `deadline`. PermissionDenied when the other side does not prove the secret
// (for the connecting side: when it closes the connection on the proof sent).
absl::Status ProveAsConnecting(int fd, const JobSecret& secret, ProofPurpose purpose,
                               absl::Time deadline);
absl::Status ProveAsAccepting(int fd, const JobSecret& secret, ProofPurpose purpose,
                              absl::Time deadline);

}  // namespace dlp::runtime
