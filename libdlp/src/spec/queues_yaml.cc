// A list of queues in YAML (dlp/queue_config.h), read as strictly as a job
// spec: every problem with its position and field path.
#include <climits>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/numeric/checked_math.h"
#include "base/strings/string_view_compat.h"
#include "dlp/queue_config.h"
#include "spec/diagnostics.h"
#include "spec/reader.h"
#include "spec/rules.h"
#include "yaml-cpp/yaml.h"

namespace dlp {
namespace {

using internal::Diagnostics;
using internal::JoinPath;
using internal::YamlReader;

constexpr absl::string_view kQueuesFileFields[] = {"queues"};
constexpr absl::string_view kQueueFields[] = {
    "name", "cohort", "nominal", "borrowingLimit", "lendingLimit", "weight", "priorityRange"};

// {cpu: 8, memory: 64Gi, gpu: 4, gpu.h100: 2}, each entry read by the
// parser of `--nominal cpu=8,...`.
std::optional<QueueResources> Resources(YamlReader& r, const YAML::Node& node,
                                        const std::string& path) {
  if (!node.IsMap()) {
    r.Report(node, path,
             absl::StrCat("expected a map such as {cpu: 8, memory: 64Gi, gpu: 4}, got ",
                          internal::Describe(node)));
    return std::nullopt;
  }
  QueueResources out;
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
    out.cpu_millis = base::SaturatingAdd(out.cpu_millis, one->cpu_millis);
    out.memory_bytes = base::SaturatingAdd(out.memory_bytes, one->memory_bytes);
    out.gpu_millis = base::SaturatingAdd(out.gpu_millis, one->gpu_millis);
    for (const auto& [flavour, millis] : one->gpu_flavours) {
      out.gpu_flavours[flavour] = base::SaturatingAdd(out.gpu_flavours[flavour], millis);
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<Queue> QueueEntry(YamlReader& r, const YAML::Node& node,
                                      const std::string& path) {
  if (!r.CheckMap(node, path, "a queue (a map with name, nominal, ...)", kQueueFields)) {
    return std::nullopt;
  }
  Queue q;
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
  const std::pair<const char*, std::optional<QueueResources>*> limits[] = {
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

absl::Status ValidateQueueName(std::string_view name) {
  if (internal::Problem p = internal::CheckQueueName(base::ToAbsl(name))) {
    return absl::InvalidArgumentError(*p);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Queue>> ParseQueuesYaml(const std::string& yaml,
                                                   const std::string& filename) {
  Diagnostics diagnostics(filename);
  YamlReader r(diagnostics);
  std::vector<Queue> config;
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
    if (!YamlReader::Present(root)) return config;  // an empty file configures nothing
    if (!r.CheckMap(root, "", "a map with queues", kQueuesFileFields)) return diagnostics.ToStatus();
    YAML::Node queues = YamlReader::Child(root, "queues");
    if (YamlReader::Present(queues)) {
      if (!queues.IsSequence()) {
        r.Report(queues, "queues",
                 absl::StrCat("expected a list of queues, got ", internal::Describe(queues)));
      } else {
        std::set<std::string> seen;
        for (size_t i = 0; i < queues.size(); ++i) {
          const std::string path = absl::StrCat("queues[", i, "]");
          std::optional<Queue> q = QueueEntry(r, queues[i], path);
          if (!q) continue;
          if (!seen.insert(q->name).second) {
            r.Report(queues[i], JoinPath(path, "name"),
                     absl::StrCat("queue \"", q->name, "\" is named twice"));
            continue;
          }
          config.push_back(std::move(*q));
        }
      }
    }
  } catch (const YAML::Exception& e) {
    diagnostics.Add(e.mark, "", e.msg);
  }
  if (!diagnostics.empty()) return diagnostics.ToStatus();
  return config;
}

}  // namespace dlp
