// A TCP port nobody listens on now, for a process the test starts to listen on.
//
// The port comes from below the kernel's ephemeral range
// (/proc/sys/net/ipv4/ip_local_port_range): a port from inside it, freed and
// handed on, can be taken by any connection the parallel tests open before
// the process binds it ("Address already in use"); below the range only an
// explicit bind can take it.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <random>

namespace dlp::testing {

inline bool CanListenOn(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);  // as wide as the listener will bind
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool free = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return free;
}

inline int FreePort() {
  int ephemeral_low = 32768;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> ephemeral_low;
  const int low = 10000, high = ephemeral_low > low + 1000 ? ephemeral_low - 1 : 29999;
  std::mt19937 pick(std::random_device{}());
  std::uniform_int_distribution<int> port(low, high);
  for (int tries = 0; tries < 1000; ++tries) {
    const int p = port(pick);
    if (CanListenOn(p)) return p;
  }
  return 0;
}

}  // namespace dlp::testing
