// An in-process Kubernetes API server (cpp-httplib on 127.0.0.1:0) that serves
// what dlp and kubectl use: create/get/list/watch/delete/merge-patch of
// configmaps, services, pods, events, the four workload kinds and Kueue
// Workloads; pod logs (follow, timestamps, tailLines, sinceTime); legacy
// discovery (/api, /apis, /api/v1, ...). resourceVersions are one counter, as
// etcd's; watches replay from a version, end at timeoutSeconds, and answer
// 410 Expired for a version before Compact(). Faults: Forbid (403 RBAC),
// DropStreams (watches and log follows cut mid-stream).
//
// There are no controllers: the test is the cluster. It starts pods, moves
// their phases, writes their logs and sets workload conditions through the
// methods below, and waits for what dlp does through Requests()/Find().
// Thread-safe.
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "nlohmann/json.hpp"

namespace dlp::testing {

class FakeApiServer {
 public:
  FakeApiServer();
  ~FakeApiServer();

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // A kubeconfig naming this server (context "fake", namespace `name_space`).
  std::string Kubeconfig(const std::string& name_space, const std::string& token = "t0k") const;

  // Resources are named "group/version/resource" ("/v1/pods",
  // "jobset.x-k8s.io/v1alpha2/jobsets").
  std::optional<nlohmann::json> Find(const std::string& resource, const std::string& ns,
                                     const std::string& name) const;
  std::vector<nlohmann::json> All(const std::string& resource) const;
  // The object of `resource` labelled dlp.dev/job-id=`job_id`.
  std::optional<nlohmann::json> FindJob(const std::string& resource,
                                        const std::string& job_id) const;
  // Creates or replaces an object (a MODIFIED or ADDED event).
  void Put(const std::string& resource, const std::string& ns, nlohmann::json object);
  // Changes an object in place; false when it does not exist.
  bool Update(const std::string& resource, const std::string& ns, const std::string& name,
              const std::function<void(nlohmann::json&)>& change);

  // The script's verbs for a job's pods and workload.
  void StartPod(const std::string& ns, const std::string& job_id, const std::string& role,
                int index, const std::string& phase = "Running");
  static std::string PodName(const std::string& job_id, const std::string& role, int index) {
    return job_id + "-" + role + "-0-" + std::to_string(index);
  }
  // Ends a pod's container with `exit_code` (phase Succeeded for 0, else
  // Failed) and `reason` ("OOMKilled"); an open log follow then ends.
  void EndPod(const std::string& ns, const std::string& pod, int exit_code,
              const std::string& reason = "");
  void AppendLog(const std::string& ns, const std::string& pod, const std::string& line);
  // Sets status.conditions[type] of the one object labelled dlp.dev/job-id=`job_id`.
  void SetCondition(const std::string& resource, const std::string& ns, const std::string& job_id,
                    const std::string& type, const std::string& status,
                    const std::string& reason = "", const std::string& message = "");
  void AddEvent(const std::string& ns, const std::string& kind, const std::string& name,
                const std::string& reason, const std::string& message);

  // Faults.
  void Forbid(const std::string& verb, const std::string& resource);  // "create", "jobsets"
  void Compact();      // versions before now answer 410 Gone
  void DropStreams();  // cuts the watches and log follows open now

  // "GET /api/v1/namespaces/ml/pods?watch=1&..." in arrival order.
  std::vector<std::string> Requests() const;
  int CountRequests(const std::string& substring) const;

 private:
  struct Change {
    int64_t version;
    std::string resource, ns, type;
    nlohmann::json object;
  };
  struct LogEntry {
    std::string time;  // RFC 3339 with nanoseconds
    std::string text;
  };

  void Route();
  void Handle(const httplib::Request& req, httplib::Response& res, const std::string& resource,
              const std::string& ns, const std::string& name);
  void Watch(const httplib::Request& req, httplib::Response& res, const std::string& resource,
             const std::string& ns);
  void Log(const httplib::Request& req, httplib::Response& res, const std::string& ns,
           const std::string& pod);
  // Under mu_: stores and records the change for watchers.
  void Record(const std::string& resource, const std::string& ns, const std::string& type,
              nlohmann::json object);
  void RemoveLocked(const std::string& resource, const std::string& ns, const std::string& name);
  std::string Key(const std::string& resource, const std::string& ns,
                  const std::string& name) const {
    return resource + "|" + ns + "|" + name;
  }

  httplib::Server server_;
  int port_ = 0;
  std::thread listener_;

  mutable std::mutex mu_;
  std::condition_variable changed_;
  bool stopping_ = false;
  int64_t version_ = 100;
  int64_t compacted_ = 0;  // watches from versions below this get 410
  int64_t drops_ = 0;      // DropStreams() calls so far
  int64_t uid_ = 0;
  std::map<std::string, nlohmann::json> objects_;
  std::vector<Change> changes_;
  std::map<std::string, std::vector<LogEntry>> logs_;  // by ns|pod
  std::set<std::string> forbidden_;                    // "verb resource"
  std::vector<std::string> requests_;
};

}  // namespace dlp::testing
