// dlp-bench-api-storm: how fast dlpd answers its owner while others hold
// connections open. Opens N slowloris sockets (one header byte every 2 s,
// reconnecting when dlpd drops them) and M log follows spread over tenants'
// silent jobs, then times GET /v1/health on fresh connections and a list
// command (`dlp list`), one sample every 0.5 s. Prints one row per phase:
// idle, then under the storm.
//
//   dlp-bench-api-storm ADDRESS OWNER_TOKEN FOLLOWS_FILE SLOWLORIS FOLLOWS SAMPLES LIST_CMD
//
// FOLLOWS_FILE has "TOKEN JOB_ID" lines; follows go round-robin over them.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace {

sockaddr_in g_addr;

int Connect() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&g_addr), sizeof(g_addr)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const std::string& data) {
  for (size_t done = 0; done < data.size();) {
    ssize_t n = send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// The status code of the answer to `request` on a fresh connection; 0 after 10 s.
int Request(const std::string& request, int* keep_fd = nullptr) {
  int fd = Connect();
  if (fd < 0 || !SendAll(fd, request)) {
    if (fd >= 0) close(fd);
    return 0;
  }
  std::string got;
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (got.find("\r\n") == std::string::npos && absl::Now() < deadline) {
    pollfd pfd = {fd, POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(absl::ToInt64Milliseconds(deadline - absl::Now()))) != 1) {
      break;
    }
    char buf[512];
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  int code = 0;
  if (got.size() > 12) absl::SimpleAtoi(got.substr(9, 3), &code);
  if (keep_fd != nullptr && code == 200) {
    *keep_fd = fd;
  } else {
    close(fd);
  }
  return code;
}

std::string Get(const std::string& target, const std::string& token) {
  return "GET " + target + " HTTP/1.1\r\nHost: dlpd\r\nAuthorization: Bearer " + token +
         "\r\nConnection: close\r\n\r\n";
}

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * (v.size() - 1) + 0.5))];
}

void Measure(const char* phase, int slowloris, int follows, int samples, const std::string& owner,
             const std::string& list_cmd) {
  std::vector<double> health_ms, list_ms;
  int failed = 0;
  for (int i = 0; i < samples; ++i) {
    absl::Time start = absl::Now();
    failed += Request(Get("/v1/health", owner)) != 200;
    health_ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
    start = absl::Now();
    failed += std::system(list_cmd.c_str()) != 0;
    list_ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
    // Spread the samples over the slowloris cycle (dlpd drops them after 10 s).
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  std::printf("%-6s %9d %7d %7d %11.1f %11.1f %11.1f %9.1f %9.1f %7d\n", phase, slowloris, follows,
              samples, Quantile(health_ms, 0.5), Quantile(health_ms, 0.9), Quantile(health_ms, 1),
              Quantile(list_ms, 0.5), Quantile(list_ms, 1), failed);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int slowloris = 0, follows = 0, samples = 0, port = 0;
  const std::string address = argc > 1 ? argv[1] : "";
  const size_t colon = address.rfind(':');
  if (argc != 8 || colon == std::string::npos ||
      !absl::SimpleAtoi(address.substr(colon + 1), &port) ||
      !absl::SimpleAtoi(argv[4], &slowloris) || !absl::SimpleAtoi(argv[5], &follows) ||
      !absl::SimpleAtoi(argv[6], &samples)) {
    std::fprintf(stderr,
                 "usage: dlp-bench-api-storm ADDRESS OWNER_TOKEN FOLLOWS_FILE SLOWLORIS "
                 "FOLLOWS SAMPLES LIST_CMD\n");
    return 2;
  }
  g_addr.sin_family = AF_INET;
  g_addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, address.substr(0, colon).c_str(), &g_addr.sin_addr);
  const std::string owner = argv[2];
  std::vector<std::pair<std::string, std::string>> jobs;  // token, job id
  std::ifstream in(argv[3]);
  for (std::string token, id; in >> token >> id;) jobs.emplace_back(token, id);
  if (jobs.empty() && follows > 0) {
    std::fprintf(stderr, "dlp-bench-api-storm: no \"TOKEN JOB_ID\" lines in %s\n", argv[3]);
    return 2;
  }
  const std::string list_cmd = argv[7];

  std::printf("# health: GET /v1/health on a fresh connection; list: %s (ms)\n", list_cmd.c_str());
  std::printf("%-6s %9s %7s %7s %11s %11s %11s %9s %9s %7s\n", "phase", "slowloris", "follows",
              "samples", "health_p50", "health_p90", "health_max", "list_p50", "list_max",
              "#failed");
  Measure("idle", 0, 0, samples, owner, list_cmd);

  // Slowloris: each socket sends one more byte of a valid head every 2 s.
  std::atomic<bool> stop{false};
  const std::string trickle = Get("/v1/health", owner);
  std::vector<int> slow(slowloris, -1);
  std::vector<size_t> sent(slowloris, 0);
  std::atomic<int> reconnects{0};
  std::thread trickler([&] {
    while (!stop) {
      for (int i = 0; i < slowloris && !stop; ++i) {
        if (slow[i] < 0 || !SendAll(slow[i], trickle.substr(sent[i] % 16, 1))) {
          if (slow[i] >= 0) {
            close(slow[i]);
            ++reconnects;
          }
          slow[i] = Connect();  // dropped by dlpd (408): come back, as an attacker would
          sent[i] = 0;
          if (slow[i] >= 0 && SendAll(slow[i], "G")) sent[i] = 1;
        } else {
          ++sent[i];
        }
      }
      for (int t = 0; t < 20 && !stop; ++t)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  // Follows: admitted (200) and then never read.
  std::vector<int> open_follows;
  int refused = 0;
  for (int i = 0; i < follows; ++i) {
    const auto& [token, id] = jobs[i % jobs.size()];
    int fd = -1;
    if (Request("GET /v1/jobs/" + id +
                    "/logs?follow=1 HTTP/1.1\r\nHost: dlpd\r\n"
                    "Authorization: Bearer " +
                    token + "\r\n\r\n",
                &fd) == 200) {
      open_follows.push_back(fd);
    } else {
      ++refused;
    }
  }
  if (refused > 0) std::fprintf(stderr, "dlp-bench-api-storm: %d follows refused\n", refused);
  // Every slowloris socket has sent its first byte before timing starts.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  Measure("storm", slowloris, static_cast<int>(open_follows.size()), samples, owner, list_cmd);

  stop = true;
  trickler.join();
  std::printf("# slowloris sockets dropped by dlpd and reopened during the storm: %d\n",
              reconnects.load());
  for (int fd : slow) {
    if (fd >= 0) close(fd);
  }
  for (int fd : open_follows) close(fd);
  return 0;
}
