// The client side of the TCP store: one connection, opened by proving the
// job's secret, then one request at a time (a mutex makes it safe to share
// between threads). Blocking calls send their timeout to the server, which
// answers TIMEOUT with the first missing key.
#include <algorithm>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/peer_proof.h"
#include "common/socket.h"
#include "dlp/status.h"
#include "rendezvous/store.h"
#include "rendezvous/store_protocol.h"

namespace dlp::runtime {
namespace {

using namespace store_wire;  // NOLINT: the wire vocabulary

// Extra time allowed for the server's answer beyond the request's own timeout.
constexpr absl::Duration kReplySlack = absl::Seconds(10);

std::string HumanDuration(absl::Duration d) {
  if (d >= absl::Seconds(1)) return absl::StrFormat("%gs", absl::ToDoubleSeconds(d));
  return absl::StrFormat("%dms", absl::ToInt64Milliseconds(d));
}

int64_t TimeoutMs(absl::Duration timeout) {
  if (timeout == absl::InfiniteDuration()) return kLongestWaitMs;
  return std::clamp<int64_t>(absl::ToInt64Milliseconds(timeout), 0, kLongestWaitMs);
}

class TcpStore : public RendezvousStore {
 public:
  TcpStore(Fd fd, std::string where) : fd_(std::move(fd)), where_(std::move(where)) {}

  absl::Status Set(const std::string& key, const std::string& value) override {
    Writer w;
    w.U8(kSet).Str(key).Str(value);
    DLP_ASSIGN_OR_RETURN(std::string reply, Call(w, absl::Now() + kReplySlack));
    return CheckReply(reply, key, absl::ZeroDuration()).status();
  }

  absl::StatusOr<std::string> Get(const std::string& key, absl::Duration timeout) override {
    Writer w;
    w.U8(kGet).I64(TimeoutMs(timeout)).Str(key);
    DLP_ASSIGN_OR_RETURN(std::string reply, Call(w, absl::Now() + timeout + kReplySlack));
    DLP_ASSIGN_OR_RETURN(std::string body, CheckReply(reply, key, timeout));
    Reader r(body);
    std::string value = r.Str();
    if (!r.ok()) return Malformed();
    return value;
  }

  absl::StatusOr<int64_t> Add(const std::string& key, int64_t delta) override {
    Writer w;
    w.U8(kAdd).Str(key).I64(delta);
    DLP_ASSIGN_OR_RETURN(std::string reply, Call(w, absl::Now() + kReplySlack));
    DLP_ASSIGN_OR_RETURN(std::string body, CheckReply(reply, key, absl::ZeroDuration()));
    Reader r(body);
    int64_t value = r.I64();
    if (!r.ok()) return Malformed();
    return value;
  }

  absl::Status Wait(const std::vector<std::string>& keys, absl::Duration timeout) override {
    Writer w;
    w.U8(kWait).I64(TimeoutMs(timeout)).U32(static_cast<uint32_t>(keys.size()));
    for (const std::string& k : keys) w.Str(k);
    DLP_ASSIGN_OR_RETURN(std::string reply, Call(w, absl::Now() + timeout + kReplySlack));
    return CheckReply(reply, keys.empty() ? "" : keys[0], timeout).status();
  }

 private:
  absl::StatusOr<std::string> Call(const Writer& request, absl::Time deadline) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!fd_.valid()) return absl::UnavailableError(absl::StrCat("rendezvous: lost the store at ", where_));
    std::string frame = request.Frame();
    absl::Status s = SendAll(fd_.get(), frame.data(), frame.size(), deadline);
    char header[4];
    if (s.ok()) s = RecvAll(fd_.get(), header, 4, deadline);
    std::string payload;
    if (s.ok()) {
      uint32_t len = DecodeLength(header);
      if (len > kMaxFrame) return Malformed();
      payload.resize(len);
      s = RecvAll(fd_.get(), payload.data(), len, deadline);
    }
    if (!s.ok()) {
      fd_.Reset();  // the stream is out of step now; later calls fail fast
      return absl::UnavailableError(
          absl::StrCat("rendezvous: store at ", where_, " stopped answering: ", s.message()));
    }
    return payload;
  }

  // Returns the reply's body after its status byte, or the error it carries.
  absl::StatusOr<std::string> CheckReply(const std::string& reply, const std::string& key,
                                         absl::Duration timeout) {
    if (reply.empty()) return Malformed();
    std::string body = reply.substr(1);
    switch (static_cast<uint8_t>(reply[0])) {
      case kOk:
        return body;
      case kTimeout: {
        Reader r(body);
        std::string missing = r.Str();
        return absl::DeadlineExceededError(
            absl::StrCat("rendezvous: timed out after ", HumanDuration(timeout),
                         " waiting for key ", missing.empty() ? key : missing));
      }
      case kFull: {
        Reader r(body);
        return absl::ResourceExhaustedError(absl::StrCat("rendezvous: ", r.Str()));
      }
      default: {
        Reader r(body);
        return absl::InternalError(absl::StrCat("rendezvous: ", r.Str()));
      }
    }
  }

  absl::Status Malformed() {
    return absl::InternalError(absl::StrCat("rendezvous: malformed reply from ", where_));
  }

  std::mutex mu_;
  Fd fd_;
  std::string where_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<RendezvousStore>> ConnectTcpStore(const std::string& host, int port,
                                                                 const JobSecret& secret,
                                                                 absl::Duration timeout) {
  DLP_RETURN_IF_ERROR(secret.CheckSet());
  const absl::Time deadline = absl::Now() + timeout;
  auto fd = ConnectTcp(host, port, deadline);
  if (!fd.ok()) {
    return absl::UnavailableError(absl::StrCat("rendezvous: cannot reach the store at ", host, ":",
                                               port, " within ", HumanDuration(timeout), ": ",
                                               fd.status().message()));
  }
  // The server may be busy with other ranks; the proof gets the connect's slack.
  absl::Status proved = ProveAsConnecting(fd->get(), secret, ProofPurpose::kStore,
                                          std::max(deadline, absl::Now() + kReplySlack));
  if (!proved.ok()) {
    std::string why = absl::StrCat("rendezvous: the store at ", host, ":", port,
                                   " did not accept this rank: ", proved.message());
    if (absl::IsPermissionDenied(proved)) return absl::PermissionDeniedError(why);
    return absl::UnavailableError(why);
  }
  return std::unique_ptr<RendezvousStore>(
      new TcpStore(std::move(*fd), absl::StrCat(host, ":", port)));
}

}  // namespace dlp::runtime
