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

// The JSON form (the one encoder), as the dlp-job(5) document: name and
// labels under metadata, the replicas a map by role, written as a person
// would (whole CPUs a number; no empty env, unset memory, workdir or deadline).
std::string JobSpecToYaml(const JobSpec& spec) {
  using internal::OrderedJson;
  const OrderedJson json = internal::SpecToJsonValue(spec);
  OrderedJson metadata = {{"name", spec.name}};
  if (!spec.labels.empty()) metadata["labels"] = json["labels"];
  OrderedJson replicas = OrderedJson::object();
  for (size_t i = 0; i < spec.replicas.size(); ++i) {
    OrderedJson replica = json["replicas"][i];
    replica.erase("role");
    if (replica["env"].empty()) replica.erase("env");
    OrderedJson& resources = replica["resources"];
    if (const int64_t millis = spec.replicas[i].resources.cpu_millis; millis % 1000 == 0) {
      resources["cpu"] = millis / 1000;
    }
    if (resources["memory"] == "0") resources.erase("memory");
    replicas[spec.replicas[i].role] = std::move(replica);
  }
  OrderedJson body = OrderedJson::object();
  for (auto it = json.begin(); it != json.end(); ++it) {
    if (it.key() == "name" || it.key() == "labels") continue;
    body[it.key()] = it.key() == "replicas" ? replicas : *it;
  }
  if (spec.workdir.empty()) body.erase("workdir");
  if (spec.active_deadline_seconds == 0) body.erase("activeDeadlineSeconds");
  return internal::ToYaml(OrderedJson{
      {"apiVersion", "dlp/v1"}, {"kind", "Job"}, {"metadata", metadata}, {"spec", body}});
}

}  // namespace dlp
