// The fake's HTTP side: routing, CRUD, label selectors, watches and log streams.
#include "libdlp/backends/kubernetes/fake_apiserver.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "support/subprocess.h"

namespace dlp::testing {
namespace {

using nlohmann::json;

struct Served {
  const char* group;
  const char* version;
  const char* resource;
  const char* kind;
};
constexpr Served kServed[] = {
    {"", "v1", "pods", "Pod"},
    {"", "v1", "configmaps", "ConfigMap"},
    {"", "v1", "services", "Service"},
    {"", "v1", "events", "Event"},
    {"batch", "v1", "jobs", "Job"},
    {"jobset.x-k8s.io", "v1alpha2", "jobsets", "JobSet"},
    {"trainer.kubeflow.org", "v1alpha1", "trainjobs", "TrainJob"},
    {"batch.volcano.sh", "v1alpha1", "jobs", "Job"},
    {"kueue.x-k8s.io", "v1beta2", "workloads", "Workload"},
};

std::string GroupVersion(const Served& s) {
  return *s.group ? absl::StrCat(s.group, "/", s.version) : s.version;
}
std::string ResourceName(const Served& s) {
  return absl::StrCat(s.group, "/", s.version, "/", s.resource);
}
const Served* Lookup(const std::string& resource) {
  for (const Served& s : kServed) {
    if (ResourceName(s) == resource) return &s;
  }
  return nullptr;
}

json Status(int code, const std::string& reason, const std::string& message,
            const json& details = json::object()) {
  return {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", json::object()},
          {"status", "Failure"}, {"message", message}, {"reason", reason},
          {"details", details},  {"code", code}};
}

void Reply(httplib::Response& res, int code, const json& body) {
  res.status = code;
  res.set_content(body.dump(), "application/json");
}

std::string Qualified(const Served& s) {
  return *s.group ? absl::StrCat(s.resource, ".", s.group) : s.resource;
}

// "a=b,c!=d,e": equality, inequality and existence, as the API server reads them.
bool Matches(const json& object, const std::string& selector) {
  const json empty = json::object();
  const json& labels = object.contains("metadata") && object["metadata"].contains("labels")
                           ? object["metadata"]["labels"]
                           : empty;
  for (absl::string_view term : absl::StrSplit(selector, ',', absl::SkipEmpty())) {
    std::string t(term);
    size_t op = t.find("!=");
    if (op != std::string::npos) {
      const std::string key = t.substr(0, op), value = t.substr(op + 2);
      if (labels.contains(key) && labels[key] == value) return false;
      continue;
    }
    op = t.find('=');
    if (op == std::string::npos) {
      if (!labels.contains(t)) return false;
      continue;
    }
    const std::string key = t.substr(0, op);
    std::string value = t.substr(op + 1);
    if (!value.empty() && value[0] == '=') value.erase(0, 1);
    if (!labels.contains(key) || labels[key] != value) return false;
  }
  return true;
}

std::string Verb(const httplib::Request& req, const std::string& name) {
  if (req.method == "POST") return "create";
  if (req.method == "DELETE") return "delete";
  if (req.method == "PATCH") return "patch";
  if (!name.empty()) return "get";
  const std::string watch = req.get_param_value("watch");
  return watch == "1" || watch == "true" ? "watch" : "list";
}

std::string Now() {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());
}

}  // namespace

FakeApiServer::FakeApiServer() {
  // Every watch and log follow holds a thread; kubectl and dlp open several.
  server_.new_task_queue = [] { return new httplib::ThreadPool(64); };
  Route();
  port_ = server_.bind_to_any_port("127.0.0.1");
  listener_ = std::thread([this] { server_.listen_after_bind(); });
  Eventually([this] { return server_.is_running(); }, absl::Seconds(10));
}

FakeApiServer::~FakeApiServer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  server_.stop();
  listener_.join();
}

void FakeApiServer::Route() {
  // Logged as they arrive (a logger would see a watch only once it ends).
  server_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response&) {
    std::string line = absl::StrCat(req.method, " ", req.path);
    char separator = '?';
    for (const auto& [key, value] : req.params) {
      absl::StrAppend(&line, std::string(1, separator), key, "=", value);
      separator = '&';
    }
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(line);
    return httplib::Server::HandlerResponse::Unhandled;
  });
  // Legacy discovery, enough for kubectl to map "jobsets" and "pods" to URLs.
  server_.Get("/version", [](const httplib::Request&, httplib::Response& res) {
    Reply(res, 200, {{"major", "1"}, {"minor", "31"}, {"gitVersion", "v1.31.0-fake"}});
  });
  server_.Get("/api", [this](const httplib::Request&, httplib::Response& res) {
    Reply(
        res, 200,
        {{"kind", "APIVersions"},
         {"versions", {"v1"}},
         {"serverAddressByClientCIDRs",
          {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", absl::StrCat("127.0.0.1:", port_)}}}}});
  });
  server_.Get("/apis", [](const httplib::Request&, httplib::Response& res) {
    json groups = json::array();
    for (const Served& s : kServed) {
      if (!*s.group) continue;
      json version = {{"groupVersion", GroupVersion(s)}, {"version", s.version}};
      groups.push_back({{"name", s.group}, {"versions", {version}}, {"preferredVersion", version}});
    }
    Reply(res, 200, {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}});
  });
  auto resources = [](const std::string& group_version, httplib::Response& res) {
    json list = json::array();
    for (const Served& s : kServed) {
      if (GroupVersion(s) != group_version) continue;
      list.push_back({{"name", s.resource},
                      {"singularName", ""},
                      {"namespaced", true},
                      {"kind", s.kind},
                      {"verbs", {"create", "delete", "get", "list", "patch", "watch"}}});
      if (std::string(s.resource) == "pods") {
        list.push_back({{"name", "pods/log"},
                        {"singularName", ""},
                        {"namespaced", true},
                        {"kind", "Pod"},
                        {"verbs", {"get"}}});
      }
    }
    if (list.empty()) return Reply(res, 404, Status(404, "NotFound", "no such group version"));
    Reply(res, 200,
          {{"kind", "APIResourceList"},
           {"apiVersion", "v1"},
           {"groupVersion", group_version},
           {"resources", list}});
  };
  server_.Get("/api/v1", [resources](const httplib::Request&, httplib::Response& res) {
    resources("v1", res);
  });
  server_.Get(R"(/apis/([^/]+)/([^/]+))",
              [resources](const httplib::Request& req, httplib::Response& res) {
                resources(absl::StrCat(req.matches[1].str(), "/", req.matches[2].str()), res);
              });
  // Every namespace exists (kubectl asks after a NotFound).
  server_.Get(R"(/api/v1/namespaces/([^/]+))",
              [](const httplib::Request& req, httplib::Response& res) {
                Reply(res, 200,
                      {{"kind", "Namespace"},
                       {"apiVersion", "v1"},
                       {"metadata", {{"name", req.matches[1].str()}}},
                       {"status", {{"phase", "Active"}}}});
              });
  server_.Get(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+)/log)",
              [this](const httplib::Request& req, httplib::Response& res) {
                Log(req, res, req.matches[1], req.matches[2]);
              });
  auto core = [this](const httplib::Request& req, httplib::Response& res) {
    Handle(req, res, absl::StrCat("/v1/", req.matches[2].str()), req.matches[1],
           req.matches.size() > 3 ? req.matches[3].str() : "");
  };
  auto grouped = [this](const httplib::Request& req, httplib::Response& res) {
    Handle(req, res,
           absl::StrCat(req.matches[1].str(), "/", req.matches[2].str(), "/", req.matches[4].str()),
           req.matches[3], req.matches.size() > 5 ? req.matches[5].str() : "");
  };
  const char* kCore = R"(/api/v1/namespaces/([^/]+)/([^/]+)(?:/([^/]+))?)";
  const char* kGrouped = R"(/apis/([^/]+)/([^/]+)/namespaces/([^/]+)/([^/]+)(?:/([^/]+))?)";
  server_.Get(kCore, core);
  server_.Post(kCore, core);
  server_.Delete(kCore, core);
  server_.Patch(kCore, core);
  server_.Get(kGrouped, grouped);
  server_.Post(kGrouped, grouped);
  server_.Delete(kGrouped, grouped);
  server_.Patch(kGrouped, grouped);
}

void FakeApiServer::Handle(const httplib::Request& req, httplib::Response& res,
                           const std::string& resource, const std::string& ns,
                           const std::string& name) {
  const Served* served = Lookup(resource);
  if (served == nullptr) {
    return Reply(res, 404,
                 Status(404, "NotFound", "the server could not find the requested resource"));
  }
  const std::string verb = Verb(req, name);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (forbidden_.count(absl::StrCat(verb, " ", served->resource))) {
      return Reply(
          res, 403,
          Status(
              403, "Forbidden",
              absl::StrCat(Qualified(*served), " is forbidden: User \"system:serviceaccount:", ns,
                           ":dlp\" cannot ", verb, " resource \"", served->resource,
                           "\" in API group \"", served->group, "\" in the namespace \"", ns, "\""),
              {{"group", served->group}, {"kind", served->resource}}));
    }
  }
  if (verb == "watch") return Watch(req, res, resource, ns);
  std::lock_guard<std::mutex> lock(mu_);
  const json not_found =
      Status(404, "NotFound", absl::StrCat(Qualified(*served), " \"", name, "\" not found"),
             {{"name", name}, {"group", served->group}, {"kind", served->resource}});
  if (verb == "list") {
    json items = json::array();
    const std::string prefix = Key(resource, ns, "");
    const std::string selector = req.get_param_value("labelSelector");
    for (auto it = objects_.lower_bound(prefix);
         it != objects_.end() && it->first.rfind(prefix, 0) == 0; ++it) {
      if (Matches(it->second, selector)) items.push_back(it->second);
    }
    return Reply(res, 200,
                 {{"kind", absl::StrCat(served->kind, "List")},
                  {"apiVersion", GroupVersion(*served)},
                  {"metadata", {{"resourceVersion", std::to_string(version_)}}},
                  {"items", items}});
  }
  if (verb == "create") {
    json object = json::parse(req.body, nullptr, false);
    if (!object.is_object() || !object.contains("metadata")) {
      return Reply(res, 400, Status(400, "BadRequest", "the body is not an object"));
    }
    const std::string new_name = object["metadata"].value("name", "");
    if (objects_.count(Key(resource, ns, new_name))) {
      return Reply(
          res, 409,
          Status(409, "AlreadyExists",
                 absl::StrCat(Qualified(*served), " \"", new_name, "\" already exists"),
                 {{"name", new_name}, {"group", served->group}, {"kind", served->resource}}));
    }
    object["metadata"]["namespace"] = ns;
    object["metadata"]["uid"] = absl::StrCat("uid-", ++uid_);
    object["metadata"]["creationTimestamp"] = Now();
    Record(resource, ns, "ADDED", object);
    return Reply(res, 201, objects_[Key(resource, ns, new_name)]);
  }
  auto it = objects_.find(Key(resource, ns, name));
  if (it == objects_.end()) return Reply(res, 404, not_found);
  if (verb == "get") return Reply(res, 200, it->second);
  if (verb == "patch") {
    json patch = json::parse(req.body, nullptr, false);
    if (!patch.is_object()) return Reply(res, 400, Status(400, "BadRequest", "bad patch"));
    json object = it->second;
    object.merge_patch(patch);
    Record(resource, ns, "MODIFIED", object);
    return Reply(res, 200, objects_[Key(resource, ns, name)]);
  }
  // delete: Foreground takes the job's pods with it (the garbage collector's work).
  json gone = it->second;
  const std::string job_id = gone["metadata"].contains("labels")
                                 ? gone["metadata"]["labels"].value("dlp.dev/job-id", "")
                                 : "";
  RemoveLocked(resource, ns, name);
  if (!job_id.empty() && resource != "/v1/pods" && resource != "/v1/configmaps" &&
      req.get_param_value("propagationPolicy") == "Foreground") {
    std::vector<std::string> pods;
    for (const auto& [key, object] : objects_) {
      if (key.rfind(Key("/v1/pods", ns, ""), 0) == 0 &&
          Matches(object, "dlp.dev/job-id=" + job_id)) {
        pods.push_back(object["metadata"]["name"]);
      }
    }
    for (const std::string& pod : pods) RemoveLocked("/v1/pods", ns, pod);
  }
  Reply(res, 200, gone);
}

void FakeApiServer::Record(const std::string& resource, const std::string& ns,
                           const std::string& type, json object) {
  object["metadata"]["resourceVersion"] = std::to_string(++version_);
  const Served* served = Lookup(resource);
  if (served != nullptr) {
    object["kind"] = served->kind;
    object["apiVersion"] = GroupVersion(*served);
  }
  objects_[Key(resource, ns, object["metadata"].value("name", ""))] = object;
  changes_.push_back(Change{version_, resource, ns, type, std::move(object)});
  changed_.notify_all();
}

void FakeApiServer::RemoveLocked(const std::string& resource, const std::string& ns,
                                 const std::string& name) {
  auto it = objects_.find(Key(resource, ns, name));
  if (it == objects_.end()) return;
  json object = std::move(it->second);
  objects_.erase(it);
  object["metadata"]["resourceVersion"] = std::to_string(++version_);
  changes_.push_back(Change{version_, resource, ns, "DELETED", std::move(object)});
  changed_.notify_all();
}

void FakeApiServer::Watch(const httplib::Request& req, httplib::Response& res,
                          const std::string& resource, const std::string& ns) {
  struct State {
    int64_t from = 0;
    int64_t drops = 0;
    bool expired = false;
    std::chrono::steady_clock::time_point deadline;
    std::string selector;
    std::vector<std::string> initial;  // ADDED lines for a watch without a version
  };
  auto state = std::make_shared<State>();
  state->selector = req.get_param_value("labelSelector");
  int seconds = 1800;
  if (req.has_param("timeoutSeconds")) seconds = std::stoi(req.get_param_value("timeoutSeconds"));
  state->deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  {
    std::lock_guard<std::mutex> lock(mu_);
    state->drops = drops_;
    const std::string version = req.get_param_value("resourceVersion");
    if (version.empty() || version == "0") {
      state->from = version_;
      for (const auto& [key, object] : objects_) {
        if (key.rfind(Key(resource, ns, ""), 0) == 0 && Matches(object, state->selector)) {
          state->initial.push_back(json{{"type", "ADDED"}, {"object", object}}.dump() + "\n");
        }
      }
    } else {
      state->from = std::stoll(version);
      state->expired = state->from < compacted_;
    }
  }
  // As the API server says it; cpp-httplib would gzip (and hold back) plain
  // application/json for a client that accepts gzip.
  res.set_chunked_content_provider("application/json;stream=watch", [this, state, resource, ns](
                                                                        size_t,
                                                                        httplib::DataSink& sink) {
    if (state->expired) {
      const std::string line =
          json{{"type", "ERROR"}, {"object", Status(410, "Expired", "too old resource version")}}
              .dump() +
          "\n";
      sink.write(line.data(), line.size());
      sink.done();
      return true;
    }
    std::vector<std::string> lines;
    lines.swap(state->initial);
    std::unique_lock<std::mutex> lock(mu_);
    while (lines.empty()) {
      if (stopping_ || std::chrono::steady_clock::now() >= state->deadline) {
        lock.unlock();
        sink.done();
        return true;
      }
      if (drops_ != state->drops) return false;  // cut without the closing chunk
      for (const Change& change : changes_) {
        if (change.version <= state->from || change.resource != resource || change.ns != ns)
          continue;
        state->from = change.version;
        if (Matches(change.object, state->selector)) {
          lines.push_back(json{{"type", change.type}, {"object", change.object}}.dump() + "\n");
        }
      }
      if (lines.empty()) changed_.wait_for(lock, std::chrono::milliseconds(100));
    }
    lock.unlock();
    for (const std::string& line : lines) {
      if (!sink.write(line.data(), line.size())) return false;
    }
    return true;
  });
}

}  // namespace dlp::testing
