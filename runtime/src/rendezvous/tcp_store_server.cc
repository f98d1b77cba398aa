// The TCP store server: one thread, one poll() loop over the listening socket,
// the clients and a wake-up eventfd. Blocking GET/WAIT requests are parked as
// waiters and answered when a SET/ADD supplies their keys or their deadline
// passes, so a slow rank never holds up the others.
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <list>
#include <map>
#include <thread>

#include "absl/strings/numbers.h"
#include "common/socket.h"
#include "dlp/status.h"
#include "rendezvous/store.h"
#include "rendezvous/store_protocol.h"

namespace dlp::runtime {
namespace {

using namespace store_wire;  // NOLINT: the wire vocabulary

struct Client {
  Fd fd;
  std::string in, out;
  bool parked = false;  // a GET/WAIT is outstanding; later requests wait their turn
  bool closed = false;
};

struct Waiter {
  Client* client;
  bool is_get;
  std::vector<std::string> keys;
  absl::Time deadline;
};

class TcpStoreServerImpl : public TcpStoreServer {
 public:
  TcpStoreServerImpl(Fd listener, int port, Fd wake)
      : listener_(std::move(listener)), port_(port), wake_(std::move(wake)) {
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
      ProcessInput();
      // Drop closed clients and their waiters.
      waiters_.remove_if([](const Waiter& w) { return w.client->closed; });
      clients_.remove_if([](const Client& c) { return c.closed; });
    }
  }

  int NextTimeoutMs() const {
    if (waiters_.empty()) return -1;
    absl::Time next = absl::InfiniteFuture();
    for (const Waiter& w : waiters_) next = std::min(next, w.deadline);
    absl::Duration left = next - absl::Now();
    if (left <= absl::ZeroDuration()) return 0;
    return static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 60000));
  }

  void AcceptOne() {
    int fd = ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;
    clients_.emplace_back();
    clients_.back().fd = Fd(fd);
  }

  void ReadFrom(Client& c) {
    char buf[64 * 1024];
    while (true) {
      ssize_t n = ::recv(c.fd.get(), buf, sizeof(buf), MSG_DONTWAIT);
      if (n > 0) {
        c.in.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) c.closed = true;
      break;
    }
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

  void HandleFrames(Client& c) {
    while (!c.closed && !c.parked && c.in.size() >= 4) {
      uint32_t len = DecodeLength(c.in.data());
      if (len > kMaxFrame) {
        c.closed = true;
        return;
      }
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
      data_[key] = std::move(value);
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
      value += delta;
      data_[key] = std::to_string(value);
      Send(c, Writer().U8(kOk).I64(value));
      WakeWaiters();
    } else if (op == kGet || op == kWait) {
      Waiter w{&c, op == kGet, {}, absl::Now() + absl::Milliseconds(r.I64())};
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

  void Fail(Client& c, const std::string& message) { Send(c, Writer().U8(kError).Str(message)); }

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
  std::list<Client> clients_;  // stable addresses: waiters point at them
  std::list<Waiter> waiters_;
  std::map<std::string, std::string> data_;
  std::thread thread_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<TcpStoreServer>> TcpStoreServer::Start(const std::string& host,
                                                                      int port) {
  DLP_ASSIGN_OR_RETURN(Fd listener, ListenTcp(host, port));
  DLP_RETURN_IF_ERROR(SetNonBlocking(listener.get(), true));
  DLP_ASSIGN_OR_RETURN(int bound, BoundPort(listener.get()));
  Fd wake(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake.valid()) return ErrnoStatus("eventfd", errno);
  return std::unique_ptr<TcpStoreServer>(
      new TcpStoreServerImpl(std::move(listener), bound, std::move(wake)));
}

}  // namespace dlp::runtime
