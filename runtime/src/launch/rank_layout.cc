#include "launch/rank_layout.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace dlp::launch {
namespace {

int RoleOrder(const std::string& role) {
  if (role == "chief" || role == "master") return 0;
  if (role == "ps") return 1;
  if (role == "worker") return 2;
  if (role == "evaluator") return 3;
  return 4;
}

absl::StatusOr<HostSlots> ParseHostEntry(absl::string_view entry) {
  HostSlots h;
  std::vector<std::string> parts = absl::StrSplit(entry, ':');
  if (parts.empty() || parts[0].empty() || parts.size() > 2) {
    return absl::InvalidArgumentError(absl::StrCat("bad host entry '", entry, "' (host[:slots])"));
  }
  h.host = parts[0];
  if (h.host[0] == '-') {
    // ssh would read it as an option (-oProxyCommand=... runs a command here).
    return absl::InvalidArgumentError(
        absl::StrCat("bad host '", h.host, "': a host name cannot start with '-'"));
  }
  if (parts.size() == 2 && (!absl::SimpleAtoi(parts[1], &h.slots) || h.slots < 1)) {
    return absl::InvalidArgumentError(absl::StrCat("bad slot count in '", entry, "'"));
  }
  return h;
}

std::vector<std::string> LocalAddresses() {
  std::vector<std::string> out;
  struct ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (struct ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr) continue;
    char buf[INET6_ADDRSTRLEN] = {0};
    if (a->ifa_addr->sa_family == AF_INET) {
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, buf, sizeof buf);
    } else if (a->ifa_addr->sa_family == AF_INET6) {
      inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(a->ifa_addr)->sin6_addr, buf,
                sizeof buf);
    } else {
      continue;
    }
    out.push_back(buf);
  }
  freeifaddrs(list);
  return out;
}

}  // namespace

absl::StatusOr<std::vector<HostSlots>> ParseHostList(const std::string& text) {
  std::vector<HostSlots> hosts;
  for (absl::string_view entry : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    auto h = ParseHostEntry(absl::StripAsciiWhitespace(entry));
    if (!h.ok()) return h.status();
    hosts.push_back(*h);
  }
  if (hosts.empty()) return absl::InvalidArgumentError("empty host list");
  return hosts;
}

absl::StatusOr<std::vector<HostSlots>> ReadHostFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read host file ", path));
  std::vector<HostSlots> hosts;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    absl::string_view view = line;
    view = view.substr(0, view.find('#'));
    std::vector<std::string> words = absl::StrSplit(view, ' ', absl::SkipWhitespace());
    if (words.empty()) continue;
    auto h = ParseHostEntry(words[0]);
    if (!h.ok())
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", number, ": ", h.status().message()));
    for (size_t i = 1; i < words.size(); ++i) {
      absl::string_view w = words[i];
      if ((absl::ConsumePrefix(&w, "slots=") || absl::ConsumePrefix(&w, "max_slots=")) &&
          absl::SimpleAtoi(w, &h->slots) && h->slots >= 1) {
        continue;
      }
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", number, ": bad word '", words[i], "'"));
    }
    hosts.push_back(*h);
  }
  if (hosts.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": no hosts"));
  return hosts;
}

absl::StatusOr<std::vector<int>> ParseGpuList(const std::string& text) {
  std::vector<int> ids;
  for (absl::string_view s : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    int id;
    if (!absl::SimpleAtoi(s, &id) || id < 0) {
      return absl::InvalidArgumentError(absl::StrCat("bad GPU id '", s, "' in '", text, "'"));
    }
    ids.push_back(id);
  }
  return ids;
}

bool IsLocalHost(const std::string& host) {
  if (host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0) return true;
  char name[256] = {0};
  if (gethostname(name, sizeof name - 1) == 0) {
    std::string self = name;
    if (host == self || host == self.substr(0, self.find('.'))) return true;
  }
  const std::vector<std::string> local = LocalAddresses();
  if (std::find(local.begin(), local.end(), host) != local.end()) return true;
  struct addrinfo hints = {};
  hints.ai_socktype = SOCK_STREAM;
  struct addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return false;
  bool is_local = false;
  for (struct addrinfo* a = found; a != nullptr && !is_local; a = a->ai_next) {
    char buf[INET6_ADDRSTRLEN] = {0};
    if (getnameinfo(a->ai_addr, a->ai_addrlen, buf, sizeof buf, nullptr, 0, NI_NUMERICHOST) != 0) {
      continue;
    }
    std::string addr = buf;
    is_local = addr.rfind("127.", 0) == 0 || addr == "::1" ||
               std::find(local.begin(), local.end(), addr) != local.end();
  }
  freeaddrinfo(found);
  return is_local;
}

std::vector<int> DetectLocalGpus() {
  std::vector<int> ids;
  if (const char* visible = getenv("CUDA_VISIBLE_DEVICES"); visible != nullptr) {
    auto parsed = ParseGpuList(visible);
    if (parsed.ok()) return *parsed;
    return ids;  // UUIDs or garbage: leave the variable alone
  }
  // One read of /dev rather than a lookup per possible device: dlp-run runs
  // this once per job start.
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/dev", ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    absl::string_view number = name;
    int index = 0;
    // nvidia0..nvidia63; not nvidiactl, nvidia-uvm or nvidia+1.
    if (absl::ConsumePrefix(&number, "nvidia") && !number.empty() &&
        absl::ascii_isdigit(static_cast<unsigned char>(number[0])) &&
        absl::SimpleAtoi(number, &index) && index < 64) {
      ids.push_back(index);
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

contract::Group NpGroup(int np, const std::vector<std::string>& command) {
  contract::Group group;
  contract::Role role;
  role.role = "rank";
  role.count = np;
  role.command = command;
  group.roles.push_back(role);
  return group;
}

absl::StatusOr<RankLayout> LayOutRanks(const contract::Group& group,
                                       const std::vector<HostSlots>& hosts_in,
                                       const std::vector<int>& gpus_in, bool gpus_given) {
  std::vector<const contract::Role*> roles;
  for (const contract::Role& r : group.roles) roles.push_back(&r);
  std::stable_sort(roles.begin(), roles.end(),
                   [](const contract::Role* a, const contract::Role* b) {
                     return RoleOrder(a->role) < RoleOrder(b->role);
                   });
  int total = 0;
  for (const contract::Role* r : roles) total += r->count;

  std::vector<HostSlots> hosts = hosts_in;
  if (hosts.empty()) hosts.push_back({"localhost", total});
  int capacity = 0;
  for (const HostSlots& h : hosts) capacity += h.slots;
  if (capacity < total) {
    return absl::InvalidArgumentError(
        absl::StrCat(total, " ranks requested but the hosts have only ", capacity, " slots"));
  }
  const std::vector<int> gpus = gpus_given ? gpus_in : DetectLocalGpus();

  RankLayout layout;
  std::map<std::string, int> node_of_host;
  std::map<std::string, int> next_local_rank, next_gpu;
  size_t host_index = 0;
  int used_on_host = 0;
  for (const contract::Role* role : roles) {
    for (int i = 0; i < role->count; ++i) {
      while (used_on_host >= hosts[host_index].slots) {
        ++host_index;
        used_on_host = 0;
      }
      ++used_on_host;
      RankPlan plan;
      plan.rank = static_cast<int>(layout.ranks.size());
      plan.role = role->role;
      plan.index = i;
      plan.name = absl::StrCat(role->role, "-", i);
      plan.host = hosts[host_index].host;
      plan.local = IsLocalHost(plan.host);
      node_of_host.emplace(plan.host, static_cast<int>(node_of_host.size()));
      plan.node_rank = node_of_host[plan.host];
      plan.local_rank = next_local_rank[plan.host]++;
      plan.command = role->command;
      plan.env = role->env;
      plan.gpus = role->gpus;
      if (!role->devices.empty()) {
        // Placed by dlpd: exactly these devices, whatever this machine shows.
        const contract::ReplicaDevices& placed = role->devices[i];
        plan.assign_gpus = true;
        plan.visible_devices = placed.visible;
        for (const auto& [name, value] : placed.env) plan.env[name] = value;
        layout.ranks.push_back(std::move(plan));
        continue;
      }
      // Plain -np: one GPU per local rank when GPUs exist; roles: their count.
      const int want = role->role == "rank" ? (gpus.empty() ? 0 : 1) : role->gpus;
      plan.assign_gpus = gpus_given || want > 0;
      if (!gpus.empty()) {
        for (int g = 0; g < want; ++g) {
          plan.gpu_ids.push_back(gpus[next_gpu[plan.host]++ % gpus.size()]);
        }
      }
      layout.ranks.push_back(std::move(plan));
    }
  }
  for (RankPlan& plan : layout.ranks) plan.local_world_size = next_local_rank[plan.host];
  layout.num_nodes = static_cast<int>(node_of_host.size());
  return layout;
}

}  // namespace dlp::launch
