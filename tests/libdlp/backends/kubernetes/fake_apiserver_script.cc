// The fake's cluster side: what controllers and kubelets would do, driven by
// the test (pods, their phases and logs, conditions, events), and its faults.
#include <chrono>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "libdlp/backends/kubernetes/fake_apiserver.h"

namespace dlp::testing {
namespace {

using nlohmann::json;

std::string Now(const char* format = "%Y-%m-%dT%H:%M:%SZ") {
  return absl::FormatTime(format, absl::Now(), absl::UTCTimeZone());
}

bool Ended(const json& pod) {
  const std::string phase = pod["status"].value("phase", "");
  return phase == "Succeeded" || phase == "Failed";
}

}  // namespace

std::string FakeApiServer::Kubeconfig(const std::string& name_space,
                                      const std::string& token) const {
  return absl::StrCat("apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n",
                      "    server: ", url(), "\nusers:\n- name: fake\n  user:\n    token: ", token,
                      "\ncontexts:\n- name: fake\n  context:\n    cluster: fake\n    user: fake\n",
                      "    namespace: ", name_space, "\ncurrent-context: fake\n");
}

std::optional<json> FakeApiServer::Find(const std::string& resource, const std::string& ns,
                                        const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(Key(resource, ns, name));
  if (it == objects_.end()) return std::nullopt;
  return it->second;
}

std::vector<json> FakeApiServer::All(const std::string& resource) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<json> all;
  for (const auto& [key, object] : objects_) {
    if (key.rfind(resource + "|", 0) == 0) all.push_back(object);
  }
  return all;
}

std::optional<json> FakeApiServer::FindJob(const std::string& resource,
                                           const std::string& job_id) const {
  for (const json& object : All(resource)) {
    if (object["metadata"].contains("labels") &&
        object["metadata"]["labels"].value("dlp.dev/job-id", "") == job_id) {
      return object;
    }
  }
  return std::nullopt;
}

void FakeApiServer::Put(const std::string& resource, const std::string& ns, json object) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool exists = objects_.count(Key(resource, ns, object["metadata"].value("name", "")));
  object["metadata"]["namespace"] = ns;
  if (!object["metadata"].contains("uid")) object["metadata"]["uid"] = absl::StrCat("uid-", ++uid_);
  if (!object["metadata"].contains("creationTimestamp")) {
    object["metadata"]["creationTimestamp"] = Now();
  }
  Record(resource, ns, exists ? "MODIFIED" : "ADDED", std::move(object));
}

bool FakeApiServer::Update(const std::string& resource, const std::string& ns,
                           const std::string& name, const std::function<void(json&)>& change) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(Key(resource, ns, name));
  if (it == objects_.end()) return false;
  json object = it->second;
  change(object);
  Record(resource, ns, "MODIFIED", std::move(object));
  return true;
}

void FakeApiServer::StartPod(const std::string& ns, const std::string& job_id,
                             const std::string& role, int index, const std::string& phase) {
  const std::string now = Now();
  json container = {
      {"name", "dlp"},     {"image", "dlp:test"}, {"ready", phase == "Running"},
      {"restartCount", 0}, {"imageID", ""},       {"containerID", "containerd://fake"}};
  json pod_status = {{"phase", phase}};
  if (phase == "Pending") {
    container["state"] = {{"waiting", {{"reason", "ContainerCreating"}}}};
  } else {
    container["state"] = {{"running", {{"startedAt", now}}}};
    pod_status["startTime"] = now;
  }
  pod_status["containerStatuses"] = json::array({container});
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"name", PodName(job_id, role, index)},
                {"labels",
                 {{"app.kubernetes.io/managed-by", "dlp"},
                  {"dlp.dev/job-id", job_id},
                  {"jobset.sigs.k8s.io/replicatedjob-name", role},
                  {"batch.kubernetes.io/job-completion-index", std::to_string(index)}}}}},
              {"spec",
               {{"nodeName", phase == "Pending" ? "" : "node-1"},
                {"containers", json::array({{{"name", "dlp"}, {"image", "dlp:test"}}})}}},
              {"status", pod_status}};
  Put("/v1/pods", ns, std::move(pod));
}

void FakeApiServer::EndPod(const std::string& ns, const std::string& pod, int exit_code,
                           const std::string& reason) {
  const std::string now = Now();
  Update("/v1/pods", ns, pod, [&](json& object) {
    object["status"]["phase"] = exit_code == 0 ? "Succeeded" : "Failed";
    json& container = object["status"]["containerStatuses"][0];
    container["ready"] = false;
    container["state"] = {
        {"terminated",
         {{"exitCode", exit_code},
          {"reason", reason.empty() ? (exit_code == 0 ? "Completed" : "Error") : reason},
          {"finishedAt", now}}}};
  });
}

void FakeApiServer::AppendLog(const std::string& ns, const std::string& pod,
                              const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<LogEntry>& entries = logs_[ns + "|" + pod];
  entries.push_back(LogEntry{Now("%Y-%m-%dT%H:%M:%E9SZ"), line});
  // Kubelet timestamps only grow; two lines in one nanosecond would not.
  if (entries.size() > 1 && entries.back().time <= entries[entries.size() - 2].time) {
    absl::Time last;
    std::string error;
    absl::ParseTime(absl::RFC3339_full, entries[entries.size() - 2].time, &last, &error);
    entries.back().time =
        absl::FormatTime("%Y-%m-%dT%H:%M:%E9SZ", last + absl::Nanoseconds(1), absl::UTCTimeZone());
  }
  changed_.notify_all();
}

void FakeApiServer::SetCondition(const std::string& resource, const std::string& ns,
                                 const std::string& job_id, const std::string& type,
                                 const std::string& status, const std::string& reason,
                                 const std::string& message) {
  std::string name;
  for (const json& object : All(resource)) {
    if (object["metadata"].contains("labels") &&
        object["metadata"]["labels"].value("dlp.dev/job-id", "") == job_id) {
      name = object["metadata"]["name"];
    }
  }
  Update(resource, ns, name, [&](json& object) {
    json& conditions = object["status"]["conditions"];
    if (!conditions.is_array()) conditions = json::array();
    json condition = {{"type", type},
                      {"status", status},
                      {"reason", reason},
                      {"message", message},
                      {"lastTransitionTime", Now()}};
    for (json& existing : conditions) {
      if (existing.value("type", "") == type) {
        existing = condition;
        return;
      }
    }
    conditions.push_back(condition);
  });
}

void FakeApiServer::AddEvent(const std::string& ns, const std::string& kind,
                             const std::string& name, const std::string& reason,
                             const std::string& message) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string event_name = absl::StrCat(name, ".", ++uid_);
  const std::string now = Now();
  Record("/v1/events", ns, "ADDED",
         {{"metadata", {{"name", event_name}, {"namespace", ns}, {"creationTimestamp", now}}},
          {"involvedObject", {{"kind", kind}, {"name", name}, {"namespace", ns}}},
          {"reason", reason},
          {"message", message},
          {"type", "Normal"},
          {"firstTimestamp", now},
          {"lastTimestamp", now}});
}

void FakeApiServer::Forbid(const std::string& verb, const std::string& resource) {
  std::lock_guard<std::mutex> lock(mu_);
  forbidden_.insert(verb + " " + resource);
}

void FakeApiServer::Compact() {
  std::lock_guard<std::mutex> lock(mu_);
  // A list from now on returns the new version, which a watch may start from.
  compacted_ = ++version_;
}

void FakeApiServer::DropStreams() {
  std::lock_guard<std::mutex> lock(mu_);
  ++drops_;
  changed_.notify_all();
}

std::vector<std::string> FakeApiServer::Requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

int FakeApiServer::CountRequests(const std::string& substring) const {
  int count = 0;
  for (const std::string& request : Requests()) count += absl::StrContains(request, substring);
  return count;
}

void FakeApiServer::Log(const httplib::Request& req, httplib::Response& res, const std::string& ns,
                        const std::string& pod) {
  struct State {
    size_t next = 0;
    int64_t drops = 0;
    bool timestamps = false;
    bool follow = false;
    absl::Time since = absl::InfinitePast();
  };
  auto state = std::make_shared<State>();
  state->timestamps = req.get_param_value("timestamps") == "true";
  state->follow = req.get_param_value("follow") == "true";
  std::string error;
  if (req.has_param("sinceTime")) {
    absl::ParseTime(absl::RFC3339_full, req.get_param_value("sinceTime"), &state->since, &error);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!objects_.count(Key("/v1/pods", ns, pod))) {
      res.status = 404;
      res.set_content(json{{"kind", "Status"},
                           {"code", 404},
                           {"reason", "NotFound"},
                           {"message", absl::StrCat("pods \"", pod, "\" not found")}}
                          .dump(),
                      "application/json");
      return;
    }
    state->drops = drops_;
    const std::vector<LogEntry>& entries = logs_[ns + "|" + pod];
    if (req.has_param("tailLines")) {
      const size_t tail = std::stoul(req.get_param_value("tailLines"));
      state->next = entries.size() > tail ? entries.size() - tail : 0;
    }
  }
  auto render = [state](const LogEntry& entry, std::string& out) {
    absl::Time at;
    std::string parse_error;
    absl::ParseTime(absl::RFC3339_full, entry.time, &at, &parse_error);
    if (at < state->since) return;
    if (state->timestamps) absl::StrAppend(&out, entry.time, " ");
    absl::StrAppend(&out, entry.text, "\n");
  };
  if (!state->follow) {
    std::lock_guard<std::mutex> lock(mu_);
    std::string text;
    const std::vector<LogEntry>& entries = logs_[ns + "|" + pod];
    for (size_t i = state->next; i < entries.size(); ++i) render(entries[i], text);
    res.set_content(text, "text/plain");
    return;
  }
  // Not text/*: cpp-httplib would gzip it for kubectl, holding lines back.
  res.set_chunked_content_provider(
      "application/octet-stream", [this, state, render, ns, pod](size_t, httplib::DataSink& sink) {
        std::string out;
        std::unique_lock<std::mutex> lock(mu_);
        while (out.empty()) {
          if (drops_ != state->drops) return false;
          const std::vector<LogEntry>& entries = logs_[ns + "|" + pod];
          for (; state->next < entries.size(); ++state->next) render(entries[state->next], out);
          if (!out.empty()) break;
          auto it = objects_.find(Key("/v1/pods", ns, pod));
          if (stopping_ || it == objects_.end() || Ended(it->second)) {
            lock.unlock();
            sink.done();  // the container has exited: its log is complete
            return true;
          }
          changed_.wait_for(lock, std::chrono::milliseconds(100));
        }
        lock.unlock();
        return sink.write(out.data(), out.size());
      });
}

}  // namespace dlp::testing
