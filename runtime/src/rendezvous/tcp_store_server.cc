// The TCP store server: one thread, one poll() loop over the listening socket,
// the clients and a wake-up eventfd. Blocking GET/WAIT requests are parked as
// waiters and answered when a SET/ADD supplies their keys or their deadline
// passes, so a slow rank never holds up the others.
//
// Every connection first proves the job's secret (common/peer_proof.h); until
// it has, the server reads no more than the proof from it and drops it after
// kProofTimeout (or sooner, when kMaxUnproven newer ones are waiting). A
// client sends one request at a time, so a client that has more than one
// request's worth of bytes buffered is dropped too, and a frame larger than
// any request the caps allow is skipped unread and refused.
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <list>
#include <map>
#include <optional>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/peer_proof.h"
#include "common/socket.h"
#include "dlp/status.h"
#include "rendezvous/store.h"
#include "rendezvous/store_protocol.h"

namespace dlp::runtime {
namespace {

using namespace store_wire;  // NOLINT: the wire vocabulary

// How long a connection may take to prove the secret, and how many may be
// trying at once: strangers cannot hold the store's memory or descriptors.
// Past the count the oldest goes, so a flood of idle strangers cannot keep
// out a rank, which proves itself within a round trip.
constexpr absl::Duration kProofTimeout = absl::Seconds(10);
constexpr int kMaxUnproven = 128;

struct Client {
  Fd fd;
  std::optional<ProofChallenge> proof;  // until the client proved the secret
  absl::Time proof_deadline;
  std::string in, out;
  size_t skip = 0;      // bytes of a refused, oversized frame still to drop
  bool parked = false;  // a GET/WAIT is outstanding; later requests wait their turn
  bool closed = false;
  bool proven() const { return !proof.has_value(); }
};

struct Waiter {
  Client* client;
  bool is_get;
  std::vector<std::string> keys;
  absl::Time deadline;
};

class TcpStoreServerImpl : public TcpStoreServer {
 public:
  TcpStoreServerImpl(Fd listener, int port, Fd wake, const JobSecret& secret,
                     const StoreLimits& limits)
      : listener_(std::move(listener)),
        port_(port),
        wake_(std::move(wake)),
        secret_(secret),
        limits_(limits),
        frame_cap_(RequestFrameCap(limits.max_key_bytes, limits.max_value_bytes)) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~TcpStoreServerImpl() override { Stop(); }
  int port() const override { return port_; }
  void Stop() override {
    if (!thread_.joinable()) return;
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_.get(), &one, sizeof(one));
    thread_.join();
  }

 private:
  void Loop() {
    while (true) {
      std::vector<pollfd> fds;
      fds.push_back({wake_.get(), POLLIN, 0});
      fds.push_back({listener_.get(), POLLIN, 0});
      std::vector<Client*> order;
      for (auto& c : clients_) {
        short events = POLLIN;
        if (!c.out.empty()) events |= POLLOUT;
        fds.push_back({c.fd.get(), events, 0});
        order.push_back(&c);
      }
      int rc = ::poll(fds.data(), fds.size(), NextTimeoutMs());
      if (rc < 0 && errno != EINTR) return;
      if (fds[0].revents) return;  // Stop()
      if (fds[1].revents & POLLIN) AcceptOne();
      for (size_t i = 0; i < order.size(); ++i) {
        if (fds[i + 2].revents & (POLLIN | POLLHUP | POLLERR)) ReadFrom(*order[i]);
        if (fds[i + 2].revents & POLLOUT) Flush(*order[i]);
      }
      ExpireWaiters();
      ExpireProofs();
      ProcessInput();
      // Drop closed clients and their waiters.
      waiters_.remove_if([](const Waiter& w) { return w.client->closed; });
      clients_.remove_if([](const Client& c) { return c.closed; });
    }
  }

  int NextTimeoutMs() const {
    absl::Time next = absl::InfiniteFuture();
    for (const Waiter& w : waiters_) next = std::min(next, w.deadline);
    for (const Client& c : clients_) {
      if (!c.proven()) next = std::min(next, c.proof_deadline);
    }
    if (next == absl::InfiniteFuture()) return -1;
    // Bounded as a duration first: a far deadline must not overflow the milliseconds.
    absl::Duration left = std::min(next - absl::Now(), absl::Minutes(1));
    if (left <= absl::ZeroDuration()) return 0;
    return static_cast<int>(absl::ToInt64Milliseconds(left) + 1);
  }

  void AcceptOne() {
    Fd fd(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!fd.valid()) return;
    Client* oldest = nullptr;
    int unproven = 0;
    for (Client& c : clients_) {
      if (c.proven() || c.closed) continue;
      ++unproven;
      if (oldest == nullptr) oldest = &c;
    }
    if (unproven >= kMaxUnproven) oldest->closed = true;
    auto proof = ProofChallenge::Start(secret_, ProofPurpose::kStore);
    if (!proof.ok()) return;
    Client& c = clients_.emplace_back();
    c.fd = std::move(fd);
    c.proof = std::move(*proof);
    c.proof_deadline = absl::Now() + kProofTimeout;
    c.out = c.proof->challenge();
    Flush(c);
  }

  void ExpireProofs() {
    absl::Time now = absl::Now();
    for (Client& c : clients_) {
      if (!c.proven() && c.proof_deadline <= now) c.closed = true;
    }
  }

  void ReadFrom(Client& c) {
    char buf[64 * 1024];
    while (!c.closed) {
      // Before its proof a client has nothing more to say; after it, one request.
      const size_t most = c.proven() ? 4 + frame_cap_ : kProofAnswerBytes;
      if (c.in.size() > most) {
        c.closed = true;
        return;
      }
      ssize_t n = ::recv(c.fd.get(), buf, sizeof(buf), MSG_DONTWAIT);
      if (n > 0) {
        Absorb(c, std::string_view(buf, static_cast<size_t>(n)));
        continue;
      }
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) c.closed = true;
      break;
    }
  }

  void Absorb(Client& c, std::string_view bytes) {
    const size_t drop = std::min(c.skip, bytes.size());
    c.skip -= drop;
    c.in.append(bytes.substr(drop));
    SkipOversized(c);
  }

  // Refuses the frame at the head of `c.in` when no request the caps allow
  // is that large, and drops its bytes (now and as they arrive) unread.
  void SkipOversized(Client& c) {
    if (!c.proven() || c.parked || c.skip > 0 || c.in.size() < 4) return;
    const uint32_t len = DecodeLength(c.in.data());
    if (len <= frame_cap_) return;
    const size_t have = c.in.size() - 4;
    if (have >= len) {
      c.in.erase(0, 4 + static_cast<size_t>(len));
    } else {
      c.skip = len - have;
      c.in.clear();
    }
    Refuse(c, absl::StrCat("a request of ", len, " bytes is over the store's cap of ", frame_cap_,
                           " bytes"));
  }

  // Handles buffered requests of every client that is not parked; answering a
  // waiter may unpark a client whose next request is already buffered.
  void ProcessInput() {
    bool progress = true;
    while (progress) {
      progress = false;
      for (Client& c : clients_) {
        size_t before = c.in.size();
        HandleFrames(c);
        progress |= c.in.size() != before;
      }
    }
  }

  // The client's proof, checked before anything else it sent is looked at.
  void HandleProof(Client& c) {
    if (c.in.size() < kProofAnswerBytes) return;
    std::optional<std::string> confirm =
        c.proof->Check(std::string_view(c.in).substr(0, kProofAnswerBytes));
    if (!confirm) {
      c.closed = true;
      return;
    }
    c.in.erase(0, kProofAnswerBytes);
    c.proof.reset();
    c.out += *confirm;
    Flush(c);
  }

  void HandleFrames(Client& c) {
    if (!c.closed && !c.proven()) HandleProof(c);
    while (!c.closed && c.proven() && !c.parked && c.in.size() >= 4) {
      SkipOversized(c);
      if (c.in.size() < 4) return;
      uint32_t len = DecodeLength(c.in.data());
      if (c.in.size() < 4 + static_cast<size_t>(len)) return;
      std::string payload = c.in.substr(4, len);
      c.in.erase(0, 4 + static_cast<size_t>(len));
      Handle(c, payload);
    }
  }

  void Handle(Client& c, const std::string& payload) {
    Reader r(payload);
    uint8_t op = r.U8();
    if (op == kSet) {
      std::string key = r.Str(), value = r.Str();
      if (!r.ok()) return Fail(c, "malformed SET");
      if (std::optional<std::string> over = OverCap(key, value)) return Refuse(c, *over);
      Put(key, std::move(value));
      Send(c, Writer().U8(kOk));
      WakeWaiters();
    } else if (op == kAdd) {
      std::string key = r.Str();
      int64_t delta = r.I64();
      if (!r.ok()) return Fail(c, "malformed ADD");
      int64_t value = 0;
      auto it = data_.find(key);
      if (it != data_.end() && !absl::SimpleAtoi(it->second, &value)) {
        return Fail(c, "ADD: value of " + key + " is not an integer");
      }
      value = static_cast<int64_t>(static_cast<uint64_t>(value) + static_cast<uint64_t>(delta));
      std::string text = std::to_string(value);
      if (std::optional<std::string> over = OverCap(key, text)) return Refuse(c, *over);
      Put(key, std::move(text));
      Send(c, Writer().U8(kOk).I64(value));
      WakeWaiters();
    } else if (op == kGet || op == kWait) {
      const int64_t timeout_ms = std::clamp<int64_t>(r.I64(), 0, kLongestWaitMs);
      Waiter w{&c, op == kGet, {}, absl::Now() + absl::Milliseconds(timeout_ms)};
      uint32_t n = op == kGet ? 1 : r.U32();
      for (uint32_t i = 0; i < n && r.ok(); ++i) w.keys.push_back(r.Str());
      if (!r.ok()) return Fail(c, "malformed GET/WAIT");
      c.parked = true;
      waiters_.push_back(std::move(w));
      WakeWaiters();
    } else {
      Fail(c, "unknown request");
    }
  }

  // Answers every waiter whose keys all exist.
  void WakeWaiters() {
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      bool ready = std::all_of(it->keys.begin(), it->keys.end(),
                               [&](const std::string& k) { return data_.count(k) > 0; });
      if (!ready) {
        ++it;
        continue;
      }
      Writer w;
      w.U8(kOk);
      if (it->is_get) w.Str(data_[it->keys[0]]);
      Client* c = it->client;
      it = waiters_.erase(it);
      Resume(*c, w);
    }
  }

  void ExpireWaiters() {
    absl::Time now = absl::Now();
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      if (it->deadline > now) {
        ++it;
        continue;
      }
      std::string missing;
      for (const std::string& k : it->keys) {
        if (!data_.count(k)) {
          missing = k;
          break;
        }
      }
      Client* c = it->client;
      it = waiters_.erase(it);
      Resume(*c, Writer().U8(kTimeout).Str(missing));
    }
  }

  void Resume(Client& c, const Writer& reply) {
    c.parked = false;
    Send(c, reply);
  }

  // Why key=value may not be stored, if it may not.
  std::optional<std::string> OverCap(const std::string& key, const std::string& value) const {
    if (key.size() > limits_.max_key_bytes) {
      return absl::StrCat("a key of ", key.size(), " bytes is over the store's cap of ",
                          limits_.max_key_bytes);
    }
    if (value.size() > limits_.max_value_bytes) {
      return absl::StrCat("the value of ", key, " (", value.size(),
                          " bytes) is over the store's cap of ", limits_.max_value_bytes);
    }
    auto it = data_.find(key);
    const size_t old = it == data_.end() ? 0 : key.size() + it->second.size();
    const size_t total = total_bytes_ - old + key.size() + value.size();
    if (total > limits_.max_total_bytes) {
      return absl::StrCat("the store is full: setting ", key, " would make it ", total,
                          " bytes, over its cap of ", limits_.max_total_bytes);
    }
    return std::nullopt;
  }

  void Put(const std::string& key, std::string value) {
    auto [it, added] = data_.try_emplace(key);
    total_bytes_ -= added ? 0 : key.size() + it->second.size();
    total_bytes_ += key.size() + value.size();
    it->second = std::move(value);
  }

  void Fail(Client& c, const std::string& message) { Send(c, Writer().U8(kError).Str(message)); }
  void Refuse(Client& c, const std::string& message) { Send(c, Writer().U8(kFull).Str(message)); }

  void Send(Client& c, const Writer& reply) {
    c.out += reply.Frame();
    Flush(c);
  }

  void Flush(Client& c) {
    while (!c.out.empty()) {
      ssize_t n = ::send(c.fd.get(), c.out.data(), c.out.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0) {
        c.out.erase(0, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) c.closed = true;
      return;
    }
  }

  Fd listener_;
  int port_;
  Fd wake_;
  const JobSecret secret_;
  const StoreLimits limits_;
  const size_t frame_cap_;
  size_t total_bytes_ = 0;  // of every key and value in data_
  std::list<Client> clients_;  // stable addresses: waiters point at them
  std::list<Waiter> waiters_;
  std::map<std::string, std::string> data_;
  std::thread thread_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<TcpStoreServer>> TcpStoreServer::Start(const std::string& host,
                                                                      int port,
                                                                      const JobSecret& secret,
                                                                      const StoreLimits& limits) {
  DLP_RETURN_IF_ERROR(secret.CheckSet());
  DLP_ASSIGN_OR_RETURN(Fd listener, ListenTcp(host, port));
  DLP_RETURN_IF_ERROR(SetNonBlocking(listener.get(), true));
  DLP_ASSIGN_OR_RETURN(int bound, BoundPort(listener.get()));
  Fd wake(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake.valid()) return ErrnoStatus("eventfd", errno);
  return std::unique_ptr<TcpStoreServer>(
      new TcpStoreServerImpl(std::move(listener), bound, std::move(wake), secret, limits));
}

}  // namespace dlp::runtime
