#include "contract/status.h"

#include <fcntl.h>
#include <string.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "base/files/atomic_write.h"
#include "base/json/fields.h"
#include "contract/field_error.h"
#include "contract/files.h"
#include "contract/untrusted_text.h"
#include "dlp/status.h"
#include "nlohmann/json.hpp"

namespace dlp::contract {
namespace {

using Json = nlohmann::json;

constexpr size_t kMaxStatusName = 256;     // names, roles, hosts, states
constexpr size_t kMaxStatusReason = 2048;  // a reason quotes a command line

// The error of a read (base/json/fields.h) with the file it is about.
absl::Status InFile(const std::string& source, absl::Status read) {
  if (read.ok()) return read;
  return absl::InvalidArgumentError(absl::StrCat(source, ": ", read.message()));
}

// Reads an optional string or integer field; absent or null leaves `out` as it is.
template <typename T>
absl::Status Field(const Json& j, const char* key, const std::string& source,
                   const std::string& path, T* out) {
  if constexpr (std::is_same_v<T, std::string>) {
    return InFile(source, base::ReadString(j, path, key, out));
  } else {
    return InFile(source, base::ReadInt(j, path, key, out));
  }
}

absl::Status OptionalInt(const Json& j, const char* key, const std::string& source,
                         const std::string& path, std::optional<int>* out) {
  return InFile(source, base::ReadOptionalInt(j, path, key, out));
}

Json OptionalJson(const std::optional<int>& v) { return v ? Json(*v) : Json(nullptr); }

absl::StatusOr<GroupStatus> ParseStatus(const Json& j, const std::string& source) {
  if (!j.is_object()) return FieldError(source, "(top)", "must be an object");
  GroupStatus s;
  DLP_RETURN_IF_ERROR(Field(j, "pid", source, "", &s.pid));
  DLP_RETURN_IF_ERROR(Field(j, "state", source, "", &s.state));
  DLP_RETURN_IF_ERROR(Field(j, "restarts", source, "", &s.restarts));
  DLP_RETURN_IF_ERROR(Field(j, "reason", source, "", &s.reason));
  // The job writes this file: its text reaches the API, the UI and terminals.
  s.state = UntrustedText(s.state, kMaxStatusName);
  s.reason = UntrustedText(s.reason, kMaxStatusReason);
  if (!j.contains("replicas") || j["replicas"].is_null()) return s;
  if (!j["replicas"].is_array()) return FieldError(source, "replicas", "must be an array");
  for (size_t i = 0; i < j["replicas"].size(); ++i) {
    const Json& r = j["replicas"][i];
    const std::string path = absl::StrCat("replicas[", i, "]");
    if (!r.is_object()) return FieldError(source, path, "must be an object");
    RankStatus rank;
    DLP_RETURN_IF_ERROR(Field(r, "name", source, path, &rank.name));
    DLP_RETURN_IF_ERROR(Field(r, "role", source, path, &rank.role));
    DLP_RETURN_IF_ERROR(Field(r, "index", source, path, &rank.index));
    DLP_RETURN_IF_ERROR(Field(r, "rank", source, path, &rank.rank));
    DLP_RETURN_IF_ERROR(Field(r, "host", source, path, &rank.host));
    DLP_RETURN_IF_ERROR(Field(r, "pid", source, path, &rank.pid));
    DLP_RETURN_IF_ERROR(Field(r, "pgid", source, path, &rank.pgid));
    DLP_RETURN_IF_ERROR(Field(r, "state", source, path, &rank.state));
    DLP_RETURN_IF_ERROR(OptionalInt(r, "exitCode", source, path, &rank.exit_code));
    DLP_RETURN_IF_ERROR(OptionalInt(r, "signal", source, path, &rank.signal));
    DLP_RETURN_IF_ERROR(Field(r, "reason", source, path, &rank.reason));
    for (std::string* name : {&rank.name, &rank.role, &rank.host, &rank.state}) {
      *name = UntrustedText(*name, kMaxStatusName);
    }
    rank.reason = UntrustedText(rank.reason, kMaxStatusReason);
    s.replicas.push_back(std::move(rank));
  }
  return s;
}

}  // namespace

std::string DescribeRankEnd(const RankStatus& r) {
  const std::string who = absl::StrCat("rank ", r.rank, " (", r.name, ") on host ", r.host);
  if (!r.reason.empty()) return absl::StrCat(who, " ", r.reason);
  if (r.signal) {
    return absl::StrCat(who, " was killed by signal ", *r.signal, " (", strsignal(*r.signal), ")");
  }
  if (!r.exit_code) return absl::StrCat(who, " is still running");
  return absl::StrCat(who, " exited with code ", *r.exit_code);
}

std::string StatusToJson(const GroupStatus& status) {
  nlohmann::ordered_json j;
  j["pid"] = status.pid;
  j["state"] = status.state;
  j["restarts"] = status.restarts;
  j["reason"] = status.reason;
  j["replicas"] = nlohmann::ordered_json::array();
  for (const RankStatus& r : status.replicas) {
    nlohmann::ordered_json e;
    e["name"] = r.name;
    e["role"] = r.role;
    e["index"] = r.index;
    e["rank"] = r.rank;
    e["host"] = r.host;
    e["pid"] = r.pid;
    e["pgid"] = r.pgid;
    e["state"] = r.state;
    e["exitCode"] = OptionalJson(r.exit_code);
    e["signal"] = OptionalJson(r.signal);
    if (!r.reason.empty()) e["reason"] = r.reason;
    j["replicas"].push_back(std::move(e));
  }
  // A reason quotes the rank's command, which may be any bytes (dlp-run's own
  // argv): what is not UTF-8 becomes U+FFFD rather than failing the write.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

absl::StatusOr<GroupStatus> ParseStatusJson(std::string_view text, const std::string& source) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(source, ": invalid JSON"));
  try {
    return ParseStatus(j, source);
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", e.what()));
  }
}

absl::StatusOr<std::optional<GroupStatus>> ReadStatusFile(const std::string& path) {
  const std::filesystem::path file(path);
  OwnedFd dir(open(file.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir) return std::optional<GroupStatus>();
  DLP_ASSIGN_OR_RETURN(TenantFolder folder, TenantFolder::FromFd(std::move(dir)));
  return ReadStatusFile(folder, file.filename().string());
}

absl::StatusOr<std::optional<GroupStatus>> ReadStatusFile(const TenantFolder& folder,
                                                          std::string_view name) {
  const std::string path(name);
  absl::StatusOr<std::string> text = folder.ReadFile(name, 0, kMaxStatusFileBytes + 1);
  if (absl::IsNotFound(text.status())) return std::optional<GroupStatus>();
  if (!text.ok()) return text.status();
  if (text->size() > kMaxStatusFileBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": larger than ", kMaxStatusFileBytes >> 20, " MiB"));
  }
  DLP_ASSIGN_OR_RETURN(GroupStatus status, ParseStatusJson(*text, path));
  return std::optional<GroupStatus>(std::move(status));
}

absl::Status StatusFileWriter::Write(const GroupStatus& status) {
  if (path_.empty()) return absl::OkStatus();
  std::string text = StatusToJson(status);
  if (text == last_) return absl::OkStatus();
  // Only the outcome must survive a crash of the machine: every process of
  // the job dies with it, so a lost intermediate status reads as a lost job.
  DLP_RETURN_IF_ERROR(
      base::WriteFileAtomically(path_, text, kPrivateFileMode,
                                status.terminal() ? base::FileSync::kDurable
                                                  : base::FileSync::kVolatile));
  last_ = std::move(text);
  return absl::OkStatus();
}

}  // namespace dlp::contract
