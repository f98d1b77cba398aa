#include "server/daemon/daemon_config.h"

#include <climits>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "dlp/queue.h"
#include "server/store/queue_store.h"
#include "spec/diagnostics.h"
#include "spec/reader.h"
#include "yaml-cpp/yaml.h"

namespace dlp::server {
namespace {

using internal::Diagnostics;
using internal::JoinPath;
using internal::YamlReader;

constexpr absl::string_view kTopFields[] = {"queues"};
constexpr absl::string_view kQueueFields[] = {
    "name", "cohort", "nominal", "borrowingLimit", "lendingLimit", "weight", "priorityRange"};

// {cpu: 8, memory: 64Gi, gpu: 4, gpu.h100: 2}, each entry read by the
// parser of `--nominal cpu=8,...`.
std::optional<ResourceVector> Resources(YamlReader& r, const YAML::Node& node,
                                        const std::string& path) {
  if (!node.IsMap()) {
    r.Report(node, path,
             absl::StrCat("expected a map such as {cpu: 8, memory: 64Gi, gpu: 4}, got ",
                          internal::Describe(node)));
    return std::nullopt;
  }
  ResourceVector out;
  bool ok = true;
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    const std::string field = JoinPath(path, key);
    if (!entry.second.IsScalar()) {
      r.Report(entry.second, field,
               absl::StrCat("expected a quantity, got ", internal::Describe(entry.second)));
      ok = false;
      continue;
    }
    absl::StatusOr<QueueResources> one =
        ParseQueueResources(absl::StrCat(key, "=", entry.second.Scalar()));
    if (!one.ok()) {
      // An unknown resource is the key's fault, a bad quantity the value's.
      const bool key_wrong = absl::StartsWith(one.status().message(), "\"");
      r.Report(key_wrong ? entry.first : entry.second, path, one.status().message());
      ok = false;
      continue;
    }
    out += ToResourceVector(*one);
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<QueueConfig> QueueEntry(YamlReader& r, const YAML::Node& node,
                                      const std::string& path) {
  if (!r.CheckMap(node, path, "a queue (a map with name, nominal, ...)", kQueueFields)) {
    return std::nullopt;
  }
  QueueConfig q;
  bool ok = true;
  YAML::Node name = YamlReader::Child(node, "name");
  if (!YamlReader::Present(name)) {
    r.Required(node, path, "name", kQueueFields, "required: the queue's name (a spec.queue)");
    ok = false;
  } else if (auto v = r.String(name, JoinPath(path, "name"))) {
    q.name = *v;
    if (absl::Status valid = ValidateQueueName(q.name); !valid.ok()) {
      r.Report(name, JoinPath(path, "name"), valid.message());
      ok = false;
    }
  } else {
    ok = false;
  }
  if (YAML::Node n = YamlReader::Child(node, "cohort"); YamlReader::Present(n)) {
    if (auto v = r.String(n, JoinPath(path, "cohort")))
      q.cohort = *v;
    else
      ok = false;
  }
  if (YAML::Node n = YamlReader::Child(node, "nominal"); YamlReader::Present(n)) {
    if (auto v = Resources(r, n, JoinPath(path, "nominal")))
      q.nominal = *v;
    else
      ok = false;
  }
  const std::pair<const char*, std::optional<ResourceVector>*> limits[] = {
      {"borrowingLimit", &q.borrowing_limit}, {"lendingLimit", &q.lending_limit}};
  for (const auto& [key, out] : limits) {
    if (YAML::Node n = YamlReader::Child(node, key); YamlReader::Present(n)) {
      if (auto v = Resources(r, n, JoinPath(path, key)))
        *out = *v;
      else
        ok = false;
    }
  }
  if (YAML::Node n = YamlReader::Child(node, "weight"); YamlReader::Present(n)) {
    auto v = r.Int(n, JoinPath(path, "weight"));
    if (v && *v >= 1 && *v <= 1000000) {
      q.weight = static_cast<int>(*v);
    } else {
      if (v) r.Report(n, JoinPath(path, "weight"), "expected a whole number from 1 to 1000000");
      ok = false;
    }
  }
  if (YAML::Node n = YamlReader::Child(node, "priorityRange"); YamlReader::Present(n)) {
    const std::string field = JoinPath(path, "priorityRange");
    if (!n.IsSequence() || n.size() != 2) {
      r.Report(n, field, "expected [MIN, MAX], e.g. [-100, 1000]");
      ok = false;
    } else {
      auto lo = r.Int(n[0], field), hi = r.Int(n[1], field);
      if (lo && hi && *lo <= *hi && *lo >= INT_MIN && *hi <= INT_MAX) {
        q.min_priority = static_cast<int>(*lo);
        q.max_priority = static_cast<int>(*hi);
      } else {
        if (lo && hi) r.Report(n, field, "expected MIN <= MAX");
        ok = false;
      }
    }
  }
  if (!ok) return std::nullopt;
  return q;
}

}  // namespace

absl::StatusOr<DaemonConfig> ParseDaemonConfig(const std::string& yaml,
                                               const std::string& filename) {
  Diagnostics diagnostics(filename);
  YamlReader r(diagnostics);
  DaemonConfig config;
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
    if (!YamlReader::Present(root)) return config;  // an empty file configures nothing
    if (!r.CheckMap(root, "", "a map with queues", kTopFields)) return diagnostics.ToStatus();
    YAML::Node queues = YamlReader::Child(root, "queues");
    if (YamlReader::Present(queues)) {
      if (!queues.IsSequence()) {
        r.Report(queues, "queues",
                 absl::StrCat("expected a list of queues, got ", internal::Describe(queues)));
      } else {
        std::set<std::string> seen;
        for (size_t i = 0; i < queues.size(); ++i) {
          const std::string path = absl::StrCat("queues[", i, "]");
          std::optional<QueueConfig> q = QueueEntry(r, queues[i], path);
          if (!q) continue;
          if (!seen.insert(q->name).second) {
            r.Report(queues[i], JoinPath(path, "name"),
                     absl::StrCat("queue \"", q->name, "\" is named twice"));
            continue;
          }
          config.queues.push_back(std::move(*q));
        }
      }
    }
  } catch (const YAML::Exception& e) {
    diagnostics.Add(e.mark, "", e.msg);
  }
  if (!diagnostics.empty()) return diagnostics.ToStatus();
  return config;
}

absl::StatusOr<DaemonConfig> LoadDaemonConfig(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read the file"));
  std::stringstream text;
  text << in.rdbuf();
  return ParseDaemonConfig(text.str(), path);
}

}  // namespace dlp::server
