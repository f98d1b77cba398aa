#include "common/peer_proof.h"

#include "common/hmac_sha256.h"
#include "common/socket.h"
#include "dlp/status.h"

namespace dlp::runtime {
namespace {

constexpr std::string_view kMagic = "dlpP";
constexpr size_t kNonceBytes = 32;
static_assert(kProofChallengeBytes == kMagic.size() + kNonceBytes);
static_assert(kProofAnswerBytes == kNonceBytes + kSha256Bytes);
static_assert(kProofConfirmBytes == kSha256Bytes);

std::string_view PurposeName(ProofPurpose purpose) {
  return purpose == ProofPurpose::kStore ? "rendezvous-store" : "comm-link";
}

std::string Proof(const std::string& key, std::string_view role, ProofPurpose purpose,
                  std::string_view accepting_nonce, std::string_view connecting_nonce) {
  std::string message("dlp-proof-v1");
  for (std::string_view part : {role, PurposeName(purpose)}) {
    message.push_back('\0');
    message.append(part);
  }
  message.push_back('\0');
  message.append(accepting_nonce);
  message.append(connecting_nonce);
  return HmacSha256(key, message);
}

}  // namespace

ProofChallenge::ProofChallenge(const JobSecret& secret, ProofPurpose purpose, std::string nonce)
    : key_(secret.bytes()),
      purpose_(purpose),
      nonce_(std::move(nonce)),
      challenge_(std::string(kMagic) + nonce_) {}

absl::StatusOr<ProofChallenge> ProofChallenge::Start(const JobSecret& secret,
                                                     ProofPurpose purpose) {
  DLP_RETURN_IF_ERROR(secret.CheckSet());
  DLP_ASSIGN_OR_RETURN(std::string nonce, RandomBytes(kNonceBytes));
  return ProofChallenge(secret, purpose, std::move(nonce));
}

std::optional<std::string> ProofChallenge::Check(std::string_view answer) const {
  if (answer.size() != kProofAnswerBytes) return std::nullopt;
  std::string_view theirs = answer.substr(0, kNonceBytes);
  if (!ConstantTimeEquals(answer.substr(kNonceBytes),
                          Proof(key_, "connect", purpose_, nonce_, theirs))) {
    return std::nullopt;
  }
  return Proof(key_, "accept", purpose_, nonce_, theirs);
}

absl::StatusOr<ProofAnswer> ProofAnswer::Answer(const JobSecret& secret, ProofPurpose purpose,
                                                std::string_view challenge) {
  DLP_RETURN_IF_ERROR(secret.CheckSet());
  if (challenge.size() != kProofChallengeBytes || challenge.substr(0, kMagic.size()) != kMagic) {
    return absl::PermissionDeniedError("the peer did not open a dlp handshake");
  }
  std::string_view theirs = challenge.substr(kMagic.size());
  DLP_ASSIGN_OR_RETURN(std::string ours, RandomBytes(kNonceBytes));
  return ProofAnswer(Proof(secret.bytes(), "accept", purpose, theirs, ours),
                     ours + Proof(secret.bytes(), "connect", purpose, theirs, ours));
}

bool ProofAnswer::Confirms(std::string_view confirm) const {
  return ConstantTimeEquals(confirm, expected_);
}

absl::Status ProveAsConnecting(int fd, const JobSecret& secret, ProofPurpose purpose,
                               absl::Time deadline) {
  DLP_RETURN_IF_ERROR(secret.CheckSet());
  std::string challenge(kProofChallengeBytes, '\0');
  DLP_RETURN_IF_ERROR(RecvAll(fd, challenge.data(), challenge.size(), deadline));
  DLP_ASSIGN_OR_RETURN(ProofAnswer answer, ProofAnswer::Answer(secret, purpose, challenge));
  DLP_RETURN_IF_ERROR(SendAll(fd, answer.answer().data(), answer.answer().size(), deadline));
  std::string confirm(kProofConfirmBytes, '\0');
  absl::Status got = RecvAll(fd, confirm.data(), confirm.size(), deadline);
  if (absl::IsUnavailable(got)) {
    return absl::PermissionDeniedError(
        "the peer closed the connection on this side's proof: it holds another secret "
        "(DLP_RDZV_SECRET)");
  }
  DLP_RETURN_IF_ERROR(got);
  if (!answer.Confirms(confirm)) {
    return absl::PermissionDeniedError("the peer does not hold the job's secret");
  }
  return absl::OkStatus();
}

absl::Status ProveAsAccepting(int fd, const JobSecret& secret, ProofPurpose purpose,
                              absl::Time deadline) {
  DLP_ASSIGN_OR_RETURN(ProofChallenge challenge, ProofChallenge::Start(secret, purpose));
  DLP_RETURN_IF_ERROR(
      SendAll(fd, challenge.challenge().data(), challenge.challenge().size(), deadline));
  std::string answer(kProofAnswerBytes, '\0');
  DLP_RETURN_IF_ERROR(RecvAll(fd, answer.data(), answer.size(), deadline));
  std::optional<std::string> confirm = challenge.Check(answer);
  if (!confirm) return absl::PermissionDeniedError("the peer does not hold the job's secret");
  return SendAll(fd, confirm->data(), confirm->size(), deadline);
}

}  // namespace dlp::runtime
