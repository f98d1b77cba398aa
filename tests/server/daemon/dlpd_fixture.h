// Starts a real dlpd in a temporary state folder on 127.0.0.1:0 and talks to it
// over HTTP, for the daemon's end-to-end tests.
#pragma once

#include <httplib.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "dlp/codec.h"
#include "dlp/job.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::testing {

inline std::string Trimmed(const std::string& s) {
  return std::string(absl::StripAsciiWhitespace(s));
}

// The folders dlpd made for its jobs' cgroups, as its log in `state_dir`
// names them ("job limits enforced with cgroup v1 (...) below A, B"); none
// when it enforces no limits.
inline std::vector<std::string> CgroupBases(const std::string& state_dir) {
  const std::string log = ReadFileOrEmpty(state_dir + "/dlpd.log");
  const size_t line = log.find("job limits enforced with cgroup");
  if (line == std::string::npos) return {};
  const size_t below = log.find(" below ", line);
  const size_t end = log.find('\n', line);
  if (below == std::string::npos || below > end) return {};
  return absl::StrSplit(log.substr(below + 7, end - below - 7), ", ");
}

class Dlpd {
 public:
  // Starts dlpd on `state_dir` with extra flags (and environment, or a
  // command put before dlpd's such as setpriv); WaitReady waits for it.
  Dlpd(const std::string& state_dir, std::vector<std::string> flags = {},
       const RunOptions& options = {}, std::vector<std::string> wrapper = {})
      : state_dir_(state_dir) {
    std::vector<std::string> argv = std::move(wrapper);
    argv.insert(argv.end(), {BinPath("dlpd"), "--state-dir", state_dir, "--listen", "127.0.0.1:0"});
    argv.insert(argv.end(), flags.begin(), flags.end());
    process_ = std::make_unique<Background>(argv, options);
  }

  // Safety net: no job process of this test outlives it (dlp-run runs in its
  // own session, so stopping dlpd does not reach it). dlpd stops first, so
  // that it starts nothing new while its jobs are killed.
  ~Dlpd() {
    if (keep_jobs_) return;
    process_->Stop();
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(state_dir_ + "/jobs", ec)) {
      auto status = nlohmann::json::parse(ReadFileOrEmpty(entry.path() / "status.json"), nullptr,
                                          false);
      if (!status.is_object()) continue;
      if (status.value("pid", 0) > 1) kill(-status.value("pid", 0), SIGKILL);
      for (const auto& r : status.value("replicas", nlohmann::json::array())) {
        if (r.value("pgid", 0) > 1) kill(-r.value("pgid", 0), SIGKILL);
      }
    }
    RemoveCgroups();
  }

  // Waits for the published address; false when dlpd exited or never published.
  bool WaitReady() {
    bool ok = Eventually([&] {
      return !ReadFileOrEmpty(state_dir_ + "/dlpd.addr").empty() &&
             ReadFileOrEmpty(state_dir_ + "/dlpd.pid") == std::to_string(process_->pid());
    }, absl::Seconds(20));
    if (!ok) return false;
    // The address answers, and it is this dlpd that answers.
    return Eventually([&] {
      address_ = Trimmed(ReadFileOrEmpty(state_dir_ + "/dlpd.addr"));
      token_ = Trimmed(ReadFileOrEmpty(state_dir_ + "/dlpd.token"));
      auto res = Client()->Get("/v1/health");
      if (!res || res->status != 200) return false;
      auto health = nlohmann::json::parse(res->body, nullptr, false);
      return health.is_object() && health.value("pid", 0) == process_->pid();
    }, absl::Seconds(20));
  }

  std::unique_ptr<httplib::Client> Client(const std::string& token) const {
    auto client = std::make_unique<httplib::Client>("http://" + address_);
    client->set_read_timeout(90, 0);
    if (!token.empty()) client->set_bearer_token_auth(token.c_str());
    return client;
  }
  std::unique_ptr<httplib::Client> Client() const { return Client(token_); }

  const std::string& address() const { return address_; }
  const std::string& token() const { return token_; }
  Background& process() { return *process_; }
  // For restart tests: leave the jobs running when this object goes away.
  void KeepJobsRunning() { keep_jobs_ = true; }

 private:
  // The cgroups of the jobs just killed, and dlpd's folders holding them.
  void RemoveCgroups() const {
    for (const std::string& base : CgroupBases(state_dir_)) {
      std::error_code ec;
      for (const auto& job : std::filesystem::directory_iterator(base, ec)) {
        if (!job.is_directory() || job.path().filename().string().rfind("job-", 0) != 0) continue;
        // Killed processes leave their cgroup as they exit.
        Eventually([&] { return rmdir(job.path().c_str()) == 0 || errno == ENOENT; },
                   absl::Seconds(10));
      }
      rmdir(base.c_str());
    }
  }

  std::string state_dir_;
  std::unique_ptr<Background> process_;
  std::string address_, token_;
  bool keep_jobs_ = false;
};

inline bool DlpRunBuilt() { return access(BinPath("dlp-run").c_str(), X_OK) == 0; }

#define REQUIRE_DLP_RUN() \
  if (!DlpRunBuilt()) GTEST_SKIP() << "dlp-run is not built"

// Running and not a zombie (an orphan's zombie may linger until init reaps it).
inline bool Alive(int pid) {
  if (pid <= 0 || kill(pid, 0) != 0) return false;
  const std::string stat = ReadFileOrEmpty("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

// A request with a JSON answer: null when no answer came; `status` gets the
// HTTP status when given.
inline nlohmann::json PostJson(httplib::Client& client, const std::string& path,
                               const nlohmann::json& body, int* status = nullptr) {
  auto res = client.Post(path.c_str(), body.dump(), "application/json");
  if (!res) return nullptr;
  if (status) *status = res->status;
  return nlohmann::json::parse(res->body, nullptr, false);
}

inline nlohmann::json DeleteJson(httplib::Client& client, const std::string& path,
                                 int* status = nullptr) {
  auto res = client.Delete(path.c_str());
  if (!res) return nullptr;
  if (status) *status = res->status;
  return nlohmann::json::parse(res->body, nullptr, false);
}

inline int FileMode(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return -1;
  return static_cast<int>(st.st_mode & 0777);
}

// A one-role spec whose replicas run `sh -c script`.
inline JobSpec ShellJob(const std::string& name, const std::string& script, int count = 1,
                        const std::string& cpu_millis = "1000") {
  JobSpec spec;
  spec.name = name;
  ReplicaSpec r;
  r.role = "worker";
  r.count = count;
  r.command = {"/bin/sh", "-c", script};
  r.resources.cpu_millis = std::stoll(cpu_millis);
  spec.replicas.push_back(r);
  spec.workdir = "/tmp";
  return spec;
}

// POSTs a spec; returns the parsed response body (and the HTTP status).
inline nlohmann::json SubmitJson(httplib::Client& client, const JobSpec& spec,
                                 int* status = nullptr) {
  auto res = client.Post("/v1/jobs", JobSpecToJson(spec), "application/json");
  if (!res) return nullptr;
  if (status) *status = res->status;
  return nlohmann::json::parse(res->body, nullptr, false);
}

// Long-polls until the job is terminal (or `timeout`); returns the last Job seen.
inline nlohmann::json WaitJob(httplib::Client& client, const std::string& id,
                              absl::Duration timeout = absl::Seconds(60)) {
  const absl::Time deadline = absl::Now() + timeout;
  nlohmann::json job;
  while (absl::Now() < deadline) {
    auto res = client.Get(("/v1/jobs/" + id + "/wait?timeout=10").c_str());
    if (!res) return nullptr;
    job = nlohmann::json::parse(res->body, nullptr, false);
    const std::string state = job.value("state", "");
    if (state == "Succeeded" || state == "Failed" || state == "Cancelled") break;
  }
  return job;
}

inline nlohmann::json GetJson(httplib::Client& client, const std::string& path,
                              int* status = nullptr) {
  auto res = client.Get(path.c_str());
  if (!res) return nullptr;
  if (status) *status = res->status;
  return nlohmann::json::parse(res->body, nullptr, false);
}

}  // namespace dlp::testing
