#include "comm/transports/link_handshake.h"

#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "dlp/status.h"

namespace dlp::runtime {
namespace {

constexpr uint32_t kHelloMagic = 0x646c7072;  // "dlpr"
constexpr size_t kHelloBytes = 8;             // magic, rank

// A rank answers a challenge within a round trip of its own step 3; a
// connection that stays silent longer is no rank, and is dropped.
constexpr absl::Duration kProofTimeout = absl::Seconds(10);

}  // namespace

absl::StatusOr<OutgoingLink> OutgoingLink::Connect(const CommOptions& o, const std::string& addr,
                                                   int peer, absl::Time deadline) {
  DLP_RETURN_IF_ERROR(o.secret.CheckSet());
  DLP_ASSIGN_OR_RETURN(HostPort hp, ParseHostPort(addr));
  auto fd = ConnectTcp(hp.host, hp.port, deadline);
  if (!fd.ok()) {
    return absl::UnavailableError(
        absl::StrCat("cannot connect to rank ", peer, " at ", addr, ": ", fd.status().message()));
  }
  return OutgoingLink(o, std::move(*fd), addr, peer);
}

absl::Status OutgoingLink::Refused(const absl::Status& why) const {
  return absl::Status(absl::IsUnavailable(why) ? absl::StatusCode::kPermissionDenied : why.code(),
                      absl::StrCat("rank ", peer_, " at ", addr_, " refused the link: ",
                                   why.message()));
}

absl::Status OutgoingLink::Answer(absl::Time deadline) {
  std::string challenge(kProofChallengeBytes, '\0');
  if (absl::Status s = RecvAll(fd_.get(), challenge.data(), challenge.size(), deadline); !s.ok()) {
    return Refused(s);
  }
  auto answer = ProofAnswer::Answer(options_->secret, ProofPurpose::kCommLink, challenge);
  if (!answer.ok()) return Refused(answer.status());
  uint32_t hello[2] = {kHelloMagic, static_cast<uint32_t>(options_->rank)};
  std::string message = answer->answer();
  message.append(reinterpret_cast<const char*>(hello), kHelloBytes);
  answer_ = *std::move(answer);
  return SendAll(fd_.get(), message.data(), message.size(), deadline);
}

absl::StatusOr<Fd> OutgoingLink::Finish(absl::Time deadline) {
  std::string confirm(kProofConfirmBytes, '\0');
  if (absl::Status s = RecvAll(fd_.get(), confirm.data(), confirm.size(), deadline); !s.ok()) {
    return Refused(s);  // closed on this rank's proof: another secret
  }
  if (!answer_ || !answer_->Confirms(confirm)) {
    return Refused(absl::PermissionDeniedError("it does not hold the job's secret"));
  }
  return std::move(fd_);
}

absl::Status IncomingLinks::AcceptOne(absl::Time deadline) {
  DLP_ASSIGN_OR_RETURN(Fd fd, AcceptTcp(listen_fd_, deadline));
  DLP_ASSIGN_OR_RETURN(ProofChallenge challenge,
                       ProofChallenge::Start(options_.secret, ProofPurpose::kCommLink));
  // 36 bytes into an empty socket buffer: never blocks for long.
  if (SendAll(fd.get(), challenge.challenge().data(), kProofChallengeBytes, deadline).ok()) {
    pending_.push_back({std::move(fd), std::move(challenge)});
  }
  return absl::OkStatus();
}

absl::Status IncomingLinks::AcceptAll(absl::Time deadline) {
  if (count_ == 0) return absl::OkStatus();
  DLP_RETURN_IF_ERROR(options_.secret.CheckSet());
  while (static_cast<int>(pending_.size()) < count_) DLP_RETURN_IF_ERROR(AcceptOne(deadline));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::pair<Fd, int>>> IncomingLinks::Finish(absl::Time deadline) {
  std::vector<std::pair<Fd, int>> links;
  while (static_cast<int>(links.size()) < count_) {
    if (pending_.empty()) DLP_RETURN_IF_ERROR(AcceptOne(deadline));
    if (pending_.empty()) continue;
    Pending p = std::move(pending_.front());
    pending_.erase(pending_.begin());
    std::string answer(kProofAnswerBytes + kHelloBytes, '\0');
    const absl::Time proof_deadline = std::min(deadline, absl::Now() + kProofTimeout);
    if (!RecvAll(p.fd.get(), answer.data(), answer.size(), proof_deadline).ok()) continue;
    std::optional<std::string> confirm =
        p.challenge.Check(std::string_view(answer).substr(0, kProofAnswerBytes));
    if (!confirm) continue;  // not one of the job's ranks: dropped unanswered
    uint32_t hello[2];
    std::memcpy(hello, answer.data() + kProofAnswerBytes, kHelloBytes);
    if (hello[0] != kHelloMagic || hello[1] >= static_cast<uint32_t>(options_.size)) {
      return absl::FailedPreconditionError(
          "a peer holding the job's secret sent no rank: a different dlp version?");
    }
    DLP_RETURN_IF_ERROR(SendAll(p.fd.get(), confirm->data(), confirm->size(), deadline));
    links.emplace_back(std::move(p.fd), static_cast<int>(hello[1]));
  }
  return links;
}

}  // namespace dlp::runtime
