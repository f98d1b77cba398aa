// The JSON form of queues and their standing (dlp/queue.h).
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codec/codec_internal.h"
#include "dlp/queue.h"
#include "dlp/spec.h"
#include "dlp/status.h"

namespace dlp {
namespace {

using internal::Json;
using internal::OrderedJson;

std::string Field(absl::string_view path, absl::string_view key) {
  return path.empty() ? std::string(key) : absl::StrCat(path, ".", key);
}

// Each resource in the form a job spec writes it (codec_spec.cc): CPUs and
// memory as quantity strings ("500m", "64Gi"), GPUs as a number.
OrderedJson ResourcesValue(const QueueResources& r) {
  OrderedJson out = {{"cpu", FormatCpuMillis(r.cpu_millis)},
                     {"memory", FormatMemoryBytes(r.memory_bytes)},
                     {"gpu", internal::GpuJson(r.gpu_millis)}};
  for (const auto& [flavour, millis] : r.gpu_flavours) {
    out[absl::StrCat("gpu.", flavour)] = internal::GpuJson(millis);
  }
  return out;
}

OrderedJson OptionalResources(const std::optional<QueueResources>& r) {
  return r ? ResourcesValue(*r) : OrderedJson(nullptr);
}

// {"cpu": 8, "memory": "64Gi", ...}: each member a number or a quantity
// string, read by the parser of the resource list form.
absl::StatusOr<QueueResources> ResourcesFromValue(const Json& value, absl::string_view path) {
  if (!value.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": expected an object such as {\"cpu\": 8, \"memory\": \"64Gi\"}, got ",
                     value.type_name()));
  }
  QueueResources out;
  for (const auto& [key, member] : value.items()) {
    std::string text;
    if (member.is_string()) {
      text = member.get<std::string>();
    } else if (member.is_number()) {
      text = member.dump();
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(Field(path, key), ": expected a quantity, got ", member.type_name()));
    }
    absl::StatusOr<QueueResources> one = ParseQueueResources(absl::StrCat(key, "=", text));
    if (!one.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ".", one.status().message()));
    }
    out.cpu_millis += one->cpu_millis;
    out.memory_bytes += one->memory_bytes;
    out.gpu_millis += one->gpu_millis;
    for (const auto& [flavour, millis] : one->gpu_flavours) out.gpu_flavours[flavour] = millis;
  }
  return out;
}

absl::Status ReadOptionalResources(const Json& object, absl::string_view path, const char* key,
                                   std::optional<QueueResources>* out) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return absl::OkStatus();
  DLP_ASSIGN_OR_RETURN(*out, ResourcesFromValue(*it, Field(path, key)));
  return absl::OkStatus();
}

OrderedJson QueueValue(const Queue& q) {
  OrderedJson range = nullptr;
  if (q.min_priority != INT_MIN || q.max_priority != INT_MAX) {
    range = OrderedJson::array({q.min_priority, q.max_priority});
  }
  return OrderedJson{{"name", q.name},
                     {"cohort", q.cohort},
                     {"nominal", ResourcesValue(q.nominal)},
                     {"borrowingLimit", OptionalResources(q.borrowing_limit)},
                     {"lendingLimit", OptionalResources(q.lending_limit)},
                     {"weight", q.weight},
                     {"priorityRange", range}};
}

absl::StatusOr<Queue> QueueFromValue(const Json& value, absl::string_view path) {
  DLP_RETURN_IF_ERROR(internal::RequireObject(value, path, "queue"));
  Queue q;
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "name", &q.name));
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "cohort", &q.cohort));
  std::optional<QueueResources> nominal;
  DLP_RETURN_IF_ERROR(ReadOptionalResources(value, path, "nominal", &nominal));
  if (nominal) q.nominal = *nominal;
  DLP_RETURN_IF_ERROR(ReadOptionalResources(value, path, "borrowingLimit", &q.borrowing_limit));
  DLP_RETURN_IF_ERROR(ReadOptionalResources(value, path, "lendingLimit", &q.lending_limit));
  DLP_RETURN_IF_ERROR(internal::ReadInt(value, path, "weight", &q.weight));
  if (q.weight < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(Field(path, "weight"), ": expected a positive integer, got ", q.weight));
  }
  auto range = value.find("priorityRange");
  if (range != value.end() && !range->is_null()) {
    if (!range->is_array() || range->size() != 2 || !(*range)[0].is_number_integer() ||
        !(*range)[1].is_number_integer()) {
      return absl::InvalidArgumentError(
          absl::StrCat(Field(path, "priorityRange"), ": expected [MIN, MAX], e.g. [-100, 1000]"));
    }
    const int64_t lo = (*range)[0].get<int64_t>(), hi = (*range)[1].get<int64_t>();
    if (lo < INT_MIN || hi > INT_MAX || lo > hi) {
      return absl::InvalidArgumentError(absl::StrCat(
          Field(path, "priorityRange"), ": expected MIN <= MAX, got [", lo, ", ", hi, "]"));
    }
    q.min_priority = static_cast<int>(lo);
    q.max_priority = static_cast<int>(hi);
  }
  return q;
}

OrderedJson UsageValue(const QueueUsage& u) {
  return OrderedJson{{"name", u.name},
                     {"cohort", u.cohort},
                     {"nominal", ResourcesValue(u.nominal)},
                     {"used", ResourcesValue(u.used)},
                     {"borrowed", ResourcesValue(u.borrowed)},
                     {"lent", ResourcesValue(u.lent)},
                     {"pending", u.pending},
                     {"running", u.running},
                     {"share", u.share},
                     {"recent", OptionalResources(u.recent)},
                     {"recentPercent", u.recent_percent},
                     {"halfLifeSeconds", u.half_life_seconds}};
}

absl::StatusOr<QueueUsage> UsageFromValue(const Json& value, absl::string_view path) {
  DLP_RETURN_IF_ERROR(internal::RequireObject(value, path, "queue"));
  QueueUsage u;
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "name", &u.name));
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "cohort", &u.cohort));
  const std::pair<const char*, QueueResources*> parts[] = {
      {"nominal", &u.nominal}, {"used", &u.used}, {"borrowed", &u.borrowed}, {"lent", &u.lent}};
  for (const auto& [key, out] : parts) {
    std::optional<QueueResources> r;
    DLP_RETURN_IF_ERROR(ReadOptionalResources(value, path, key, &r));
    if (r) *out = *r;
  }
  DLP_RETURN_IF_ERROR(internal::ReadInt(value, path, "pending", &u.pending));
  DLP_RETURN_IF_ERROR(internal::ReadInt(value, path, "running", &u.running));
  auto share = value.find("share");
  if (share != value.end() && !share->is_null()) {
    if (!share->is_number()) {
      return absl::InvalidArgumentError(absl::StrCat(Field(path, "share"), ": expected a number"));
    }
    u.share = share->get<double>();
  }
  DLP_RETURN_IF_ERROR(ReadOptionalResources(value, path, "recent", &u.recent));
  DLP_RETURN_IF_ERROR(internal::ReadInt(value, path, "recentPercent", &u.recent_percent));
  DLP_RETURN_IF_ERROR(internal::ReadInt(value, path, "halfLifeSeconds", &u.half_life_seconds));
  return u;
}

}  // namespace

std::string QueueToJson(const Queue& queue, int indent) {
  return internal::DumpJson(QueueValue(queue), indent);
}

std::string QueuesToJson(const std::vector<Queue>& queues, int indent) {
  OrderedJson list = OrderedJson::array();
  for (const Queue& q : queues) list.push_back(QueueValue(q));
  return internal::DumpJson(OrderedJson{{"queues", list}}, indent);
}

absl::StatusOr<Queue> QueueFromJson(std::string_view json) {
  DLP_ASSIGN_OR_RETURN(Json value, internal::ParseJson(json, "a queue"));
  return QueueFromValue(value, "");
}

absl::StatusOr<std::vector<Queue>> QueuesFromJson(std::string_view json) {
  DLP_ASSIGN_OR_RETURN(Json value, internal::ParseJson(json, "a list of queues"));
  if (!value.is_object()) return absl::InvalidArgumentError("expected {\"queues\": [...]}");
  DLP_ASSIGN_OR_RETURN(const Json* list, internal::ReadArray(value, "", "queues"));
  std::vector<Queue> out;
  if (list == nullptr) return out;
  for (size_t i = 0; i < list->size(); ++i) {
    DLP_ASSIGN_OR_RETURN(Queue q, QueueFromValue((*list)[i], absl::StrCat("queues[", i, "]")));
    out.push_back(std::move(q));
  }
  return out;
}

std::string QueueUsageToJson(const QueueUsage& usage, int indent) {
  return internal::DumpJson(UsageValue(usage), indent);
}

std::string QueueUsagesToJson(const std::vector<QueueUsage>& usages, int indent) {
  OrderedJson list = OrderedJson::array();
  for (const QueueUsage& u : usages) list.push_back(UsageValue(u));
  return internal::DumpJson(list, indent);
}

absl::StatusOr<QueueUsage> QueueUsageFromJson(std::string_view json) {
  DLP_ASSIGN_OR_RETURN(Json value, internal::ParseJson(json, "a queue's standing"));
  return UsageFromValue(value, "");
}

absl::StatusOr<std::vector<QueueUsage>> QueueUsagesFromJson(std::string_view json) {
  DLP_ASSIGN_OR_RETURN(Json value, internal::ParseJson(json, "the queues' standing"));
  if (!value.is_array()) return absl::InvalidArgumentError("expected a list of queues");
  std::vector<QueueUsage> out;
  for (size_t i = 0; i < value.size(); ++i) {
    DLP_ASSIGN_OR_RETURN(QueueUsage u, UsageFromValue(value[i], absl::StrCat("[", i, "]")));
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace dlp
