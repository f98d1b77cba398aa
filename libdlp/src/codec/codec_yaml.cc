// The YAML forms (`-o yaml`): the JSON documents of docs/api.md written as
// YAML, and a JobSpec written back as the dlp-job(5) file a user would write.
#include <string>

#include "absl/strings/ascii.h"
#include "codec/codec_internal.h"
#include "dlp/codec.h"
#include "dlp/spec.h"
#include "yaml-cpp/yaml.h"

namespace dlp {
namespace internal {
namespace {

// Strings a YAML reader would take for a number, a boolean or null are quoted,
// so that "007" or "true" stay strings.
bool NeedsQuotes(const std::string& s) {
  if (s.empty()) return true;
  const std::string lower = absl::AsciiStrToLower(s);
  for (const char* word : {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"}) {
    if (lower == word) return true;
  }
  bool digit = false;
  for (char c : s) {
    if (absl::ascii_isdigit(static_cast<unsigned char>(c))) {
      digit = true;
    } else if (!(c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E' || c == 'x' || c == 'o' ||
                 c == '_' || c == ':')) {
      return false;
    }
  }
  return digit || lower == ".inf" || lower == ".nan";
}

bool AllScalars(const OrderedJson& array) {
  for (const OrderedJson& item : array) {
    if (item.is_object() || item.is_array()) return false;
  }
  return true;
}

void Emit(const OrderedJson& value, YAML::Emitter& out) {
  switch (value.type()) {
    case OrderedJson::value_t::object:
      if (value.empty()) {
        out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
        break;
      }
      out << YAML::BeginMap;
      for (auto it = value.begin(); it != value.end(); ++it) {
        out << YAML::Key << it.key() << YAML::Value;
        Emit(*it, out);
      }
      out << YAML::EndMap;
      break;
    case OrderedJson::value_t::array:
      // Lists of scalars (a command line) read best on one line.
      if (AllScalars(value)) out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const OrderedJson& item : value) Emit(item, out);
      out << YAML::EndSeq;
      break;
    case OrderedJson::value_t::string: {
      const std::string& s = value.get_ref<const std::string&>();
      if (NeedsQuotes(s)) out << YAML::DoubleQuoted;
      out << s;
      break;
    }
    case OrderedJson::value_t::null:
      out << YAML::Null;
      break;
    case OrderedJson::value_t::boolean:
      out << (value.get<bool>() ? "true" : "false");
      break;
    default:  // numbers
      out << value.dump();
      break;
  }
}

}  // namespace

std::string ToYaml(const OrderedJson& value) {
  YAML::Emitter out;
  Emit(value, out);
  std::string text = out.c_str();
  if (!text.empty() && text.back() != '\n') text.push_back('\n');
  return text;
}

}  // namespace internal

std::string JobToYaml(const Job& job) { return internal::ToYaml(internal::JobToJsonValue(job)); }

std::string JobsToYaml(const std::vector<Job>& jobs) {
  internal::OrderedJson list = internal::OrderedJson::array();
  for (const Job& job : jobs) list.push_back(internal::JobToJsonValue(job));
  return internal::ToYaml(internal::OrderedJson{{"jobs", list}});
}

std::string JobSpecToYaml(const JobSpec& spec) {
  using internal::OrderedJson;
  OrderedJson metadata = {{"name", spec.name}};
  if (!spec.labels.empty()) metadata["labels"] = OrderedJson(spec.labels);
  OrderedJson replicas = OrderedJson::object();
  for (const ReplicaSpec& r : spec.replicas) {
    OrderedJson replica = {{"count", r.count}};
    if (r.min_count != 0) replica["minCount"] = r.min_count;
    replica["command"] = r.command;
    if (!r.env.empty()) replica["env"] = OrderedJson(r.env);
    // Whole CPUs as a number ("cpu: 2"), as people write them; else "500m".
    OrderedJson resources = {{"cpu", r.resources.cpu_millis % 1000 == 0
                                         ? OrderedJson(r.resources.cpu_millis / 1000)
                                         : OrderedJson(FormatCpuMillis(r.resources.cpu_millis))}};
    if (r.resources.memory_bytes != 0) {
      resources["memory"] = FormatMemoryBytes(r.resources.memory_bytes);
    }
    resources["gpu"] = internal::GpuJson(r.resources.gpu_millis);
    if (!r.resources.gpu_type.empty()) resources["gpuType"] = r.resources.gpu_type;
    replica["resources"] = resources;
    replicas[r.role] = replica;
  }
  OrderedJson body = {
      {"framework", FrameworkName(spec.framework)},
      {"queue", spec.queue},
      {"priority", spec.priority},
      {"replicas", replicas},
  };
  if (!spec.workdir.empty()) body["workdir"] = spec.workdir;
  if (!spec.image.empty()) body["image"] = spec.image;
  body["restartPolicy"] = {{"policy", RestartPolicyName(spec.restart_policy.policy)},
                           {"maxRestarts", spec.restart_policy.max_restarts},
                           {"backoffSeconds", spec.restart_policy.backoff_seconds}};
  if (!spec.success_policy.roles.empty()) {
    body["successPolicy"] = {{"roles", spec.success_policy.roles}};
  }
  if (spec.active_deadline_seconds != 0) {
    body["activeDeadlineSeconds"] = spec.active_deadline_seconds;
  }
  if (spec.logs.max_bytes != 0) body["logs"] = {{"maxBytes", spec.logs.max_bytes}};
  if (!spec.preemptible) body["preemptible"] = false;
  if (spec.tracing != Tracing::kSampled) body["tracing"] = TracingName(spec.tracing);
  if (spec.preemption != PreemptionSpec()) {
    body["preemption"] = {{"gracePeriodSeconds", spec.preemption.grace_period_seconds}};
  }
  if (!spec.depends_on.empty()) body["dependsOn"] = internal::DependsOnJson(spec.depends_on);
  return internal::ToYaml(OrderedJson{
      {"apiVersion", "dlp/v1"}, {"kind", "Job"}, {"metadata", metadata}, {"spec", body}});
}

}  // namespace dlp
