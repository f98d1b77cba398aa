#include "server/executor/cgroup.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "contract/files.h"
#include "dlp/status.h"
#include "server/executor/gpu_device_access.h"

namespace dlp::server {
namespace {

constexpr int64_t kCpuPeriodMicros = 100000;

// Control files are written in one write(2): the kernel parses each write.
absl::Status WriteControl(const std::string& path, const std::string& value) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return absl::UnavailableError(absl::StrCat(path, ": ", strerror(errno)));
  const ssize_t n = write(fd, value.data(), value.size());
  const int err = errno;
  close(fd);
  if (n != static_cast<ssize_t>(value.size())) {
    return absl::UnavailableError(
        absl::StrCat("writing \"", value, "\" to ", path, ": ", strerror(n < 0 ? err : EIO)));
  }
  return absl::OkStatus();
}

std::string ReadControl(const std::string& path) {
  absl::StatusOr<std::optional<std::string>> text = contract::ReadFileIfExists(path);
  return text.ok() && *text ? **text : "";
}

absl::Status MakeFolder(const std::string& path) {
  if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    return absl::UnavailableError(absl::StrCat("cannot create ", path, ": ", strerror(errno)));
  }
  return absl::OkStatus();
}

// The value of `key` in a flat-keyed file ("oom_kill 3" in memory.events).
int64_t KeyedValue(const std::string& text, absl::string_view key) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::ConsumePrefix(&line, key) || !absl::ConsumePrefix(&line, " ")) continue;
    int64_t value = 0;
    if (absl::SimpleAtoi(line, &value)) return value;
  }
  return 0;
}

struct Mount {
  std::string root, point;
  bool v2 = false;
  std::set<std::string> controllers;  // v1: the controllers bound to it
};

std::vector<Mount> CgroupMounts() {
  std::vector<Mount> mounts;
  for (absl::string_view line : absl::StrSplit(ReadControl("/proc/self/mountinfo"), '\n')) {
    std::vector<std::string> halves = absl::StrSplit(line, " - ");
    if (halves.size() != 2) continue;
    std::vector<std::string> left = absl::StrSplit(halves[0], ' ');
    std::vector<std::string> right = absl::StrSplit(halves[1], ' ');
    if (left.size() < 5 || right.size() < 3) continue;
    Mount m{left[3], left[4]};
    if (right[0] == "cgroup2") {
      m.v2 = true;
    } else if (right[0] == "cgroup") {
      for (absl::string_view opt : absl::StrSplit(right[2], ',')) m.controllers.emplace(opt);
    } else {
      continue;
    }
    mounts.push_back(std::move(m));
  }
  return mounts;
}

// The folder of cgroup `path` (from /proc/self/cgroup) under mount `m`.
std::string FolderOf(const Mount& m, absl::string_view path) {
  if (m.root != "/") absl::ConsumePrefix(&path, m.root);
  std::string folder = m.point;
  if (path != "/") absl::StrAppend(&folder, path);
  return folder;
}

bool HasWord(const std::string& text, absl::string_view word) {
  for (absl::string_view w : absl::StrSplit(text, absl::ByAnyChar(" \n"), absl::SkipEmpty())) {
    if (w == word) return true;
  }
  return false;
}

// Lets the children of cgroup v2 `folder` use memory (required), cpu and pids.
absl::Status EnableControllers(const std::string& folder) {
  const std::string available = ReadControl(folder + "/cgroup.controllers");
  for (const char* c : {"memory", "cpu", "pids"}) {
    if (!HasWord(available, c)) continue;
    absl::Status enabled = WriteControl(folder + "/cgroup.subtree_control", absl::StrCat("+", c));
    if (!enabled.ok() && std::string(c) == "memory") return enabled;
  }
  return absl::OkStatus();
}

}  // namespace

CgroupLimits JobCgroupLimits(int64_t memory_bytes, int64_t cpu_millis, int replicas) {
  return {memory_bytes, cpu_millis, kPidsPerReplica * replicas + 64};
}

absl::StatusOr<Cgroups> Cgroups::Detect(const std::string& tag) {
  // "ID:CONTROLLERS:PATH" lines; v2 is "0::PATH".
  std::map<std::string, std::string> paths;
  for (absl::string_view line : absl::StrSplit(ReadControl("/proc/self/cgroup"), '\n')) {
    std::vector<std::string> parts = absl::StrSplit(line, absl::MaxSplits(':', 2));
    if (parts.size() != 3) continue;
    for (absl::string_view c : absl::StrSplit(parts[1], ',')) paths[std::string(c)] = parts[2];
  }
  const std::vector<Mount> mounts = CgroupMounts();
  const std::string name = "dlp-" + tag;
  std::vector<std::string> why;
  Cgroups cgroups;
  for (const Mount& m : mounts) {
    if (!m.v2 || !paths.count("")) continue;
    const std::string own = FolderOf(m, paths[""]);
    if (!HasWord(ReadControl(own + "/cgroup.controllers"), "memory")) {
      why.push_back(absl::StrCat("cgroup v2 at ", own, " has no memory controller"));
      break;
    }
    // A cgroup with processes cannot hand controllers to children (the root
    // may): when dlpd's cgroup refuses, dlpd moves itself into a leaf first.
    absl::Status ready = EnableControllers(own);
    if (!ready.ok()) {
      ready = MakeFolder(own + "/dlpd");
      if (ready.ok()) ready = WriteControl(own + "/dlpd/cgroup.procs", std::to_string(getpid()));
      if (ready.ok()) ready = EnableControllers(own);
    }
    const std::string base = own + "/" + name;
    if (ready.ok()) ready = MakeFolder(base);
    if (ready.ok()) ready = EnableControllers(base);
    if (!ready.ok()) {
      why.push_back(absl::StrCat("cgroup v2: ", ready.message()));
      break;
    }
    cgroups.v2_ = true;
    cgroups.bases_[""] = base;
    return cgroups;
  }
  for (const char* controller : {"memory", "cpu", "pids", "devices"}) {
    for (const Mount& m : mounts) {
      if (m.v2 || !m.controllers.count(controller) || !paths.count(controller)) continue;
      const std::string base = FolderOf(m, paths[controller]) + "/" + name;
      absl::Status made = MakeFolder(base);
      if (made.ok()) {
        cgroups.bases_[controller] = base;
      } else {
        why.push_back(absl::StrCat("cgroup v1: ", made.message()));
      }
      break;
    }
  }
  if (cgroups.bases_.count("memory")) return cgroups;
  if (why.empty()) why.push_back("no cgroup hierarchy with a memory controller is mounted");
  return absl::UnavailableError(absl::StrJoin(why, "; "));
}

std::string Cgroups::Describe() const {
  if (v2_) return absl::StrCat("cgroup v2 below ", bases_.at(""));
  std::vector<std::string> controllers, folders;
  for (const auto& [c, folder] : bases_) {
    controllers.push_back(c);
    folders.push_back(folder);
  }
  return absl::StrCat("cgroup v1 (", absl::StrJoin(controllers, ", "), ") below ",
                      absl::StrJoin(folders, ", "));
}

void Cgroups::RemoveIfUnused() const {
  for (const auto& [c, base] : bases_) rmdir(base.c_str());  // EBUSY while jobs remain
}

std::vector<std::string> Cgroups::Paths(const std::string& job) const {
  std::vector<std::string> out;
  for (const auto& [c, base] : bases_) out.push_back(absl::StrCat(base, "/job-", job));
  return out;
}

absl::StatusOr<std::vector<std::string>> Cgroups::Create(const std::string& job,
                                                         const CgroupLimits& limits) const {
  std::vector<std::string> procs;
  for (const auto& [c, base] : bases_) {
    const std::string dir = absl::StrCat(base, "/job-", job);
    DLP_RETURN_IF_ERROR(MakeFolder(dir));
    procs.push_back(dir + "/cgroup.procs");
    const bool memory = v2_ || c == "memory", cpu = v2_ || c == "cpu", pids = v2_ || c == "pids";
    if (memory && limits.memory_bytes > 0) {
      const std::string bytes = std::to_string(limits.memory_bytes);
      DLP_RETURN_IF_ERROR(
          WriteControl(dir + (v2_ ? "/memory.max" : "/memory.limit_in_bytes"), bytes));
      // Without swap the limit is the limit; not every kernel accounts swap.
      WriteControl(dir + (v2_ ? "/memory.swap.max" : "/memory.memsw.limit_in_bytes"),
                   v2_ ? "0" : bytes)
          .IgnoreError();
    }
    if (cpu && limits.cpu_millis > 0) {
      const int64_t quota = std::max<int64_t>(1000, limits.cpu_millis * kCpuPeriodMicros / 1000);
      if (v2_) {
        DLP_RETURN_IF_ERROR(
            WriteControl(dir + "/cpu.max", absl::StrCat(quota, " ", kCpuPeriodMicros)));
      } else {
        DLP_RETURN_IF_ERROR(
            WriteControl(dir + "/cpu.cfs_period_us", std::to_string(kCpuPeriodMicros)));
        DLP_RETURN_IF_ERROR(WriteControl(dir + "/cpu.cfs_quota_us", std::to_string(quota)));
      }
    }
    if (pids && limits.pids > 0) {
      DLP_RETURN_IF_ERROR(WriteControl(dir + "/pids.max", std::to_string(limits.pids)));
    }
  }
  return procs;
}

absl::Status Cgroups::RestrictGpus(const std::string& job,
                                   const std::vector<int>& allowed_minors) const {
  if (v2_) return AttachGpuDeviceProgram(Paths(job)[0], allowed_minors);
  auto devices = bases_.find("devices");
  if (devices == bases_.end()) {
    return absl::UnavailableError("no cgroup v1 devices hierarchy is writable");
  }
  const std::string deny = absl::StrCat(devices->second, "/job-", job, "/devices.deny");
  for (const std::string& rule : GpuDenyRules(allowed_minors)) {
    DLP_RETURN_IF_ERROR(WriteControl(deny, rule));
  }
  return absl::OkStatus();
}

int64_t Cgroups::OomKills(const std::string& job) const {
  if (v2_) return KeyedValue(ReadControl(Paths(job)[0] + "/memory.events"), "oom_kill");
  auto memory = bases_.find("memory");
  if (memory == bases_.end()) return 0;
  return KeyedValue(ReadControl(absl::StrCat(memory->second, "/job-", job, "/memory.oom_control")),
                    "oom_kill");
}

namespace {

// The pids listed in a cgroup folder's cgroup.procs.
std::vector<pid_t> ProcessesIn(const std::string& dir) {
  std::vector<pid_t> pids;
  for (absl::string_view line : absl::StrSplit(ReadControl(dir + "/cgroup.procs"), '\n')) {
    pid_t pid = 0;
    if (absl::SimpleAtoi(line, &pid) && pid > 1) pids.push_back(pid);
  }
  return pids;
}

}  // namespace

std::vector<pid_t> Cgroups::Processes(const std::string& job) const {
  const std::vector<std::string> dirs = Paths(job);
  return dirs.empty() ? std::vector<pid_t>{} : ProcessesIn(dirs.front());  // v1: all alike
}

bool Cgroups::Remove(const std::string& job) const {
  bool gone = true;
  for (const std::string& dir : Paths(job)) {
    for (pid_t pid : ProcessesIn(dir)) kill(pid, SIGKILL);
    if (rmdir(dir.c_str()) != 0 && errno != ENOENT) gone = false;
  }
  return gone;
}

}  // namespace dlp::server
