#include "server/store/model_store.h"

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "dlp/status.h"
#include "server/store/job_store.h"

namespace dlp::server {
namespace {

constexpr absl::string_view kColumns =
    "tenant, name, version, file, size, sha256, job, job_spec, metrics, labels, git_commit, "
    "registered_by, created_us";

std::string MetricsJson(const std::map<std::string, double>& metrics) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : metrics) j[k] = v;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string LabelsJson(const std::map<std::string, std::string>& labels) {
  return nlohmann::json(labels).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

StoredModel ReadRow(const Statement& s) {
  StoredModel out;
  out.tenant = s.Text(0);
  ModelVersion& m = out.model;
  m.name = s.Text(1);
  m.version = static_cast<int>(s.Int(2));
  m.file = s.Text(3);
  m.size = s.Int(4);
  m.sha256 = s.Text(5);
  m.job = s.Text(6);
  m.job_spec = s.Text(7);
  const nlohmann::json metrics = nlohmann::json::parse(s.Text(8), nullptr, false);
  if (metrics.is_object()) {
    for (const auto& [k, v] : metrics.items()) {
      if (v.is_number()) m.metrics[k] = v.get<double>();
    }
  }
  const nlohmann::json labels = nlohmann::json::parse(s.Text(9), nullptr, false);
  if (labels.is_object()) {
    for (const auto& [k, v] : labels.items()) {
      if (v.is_string()) m.labels[k] = v.get<std::string>();
    }
  }
  m.git_commit = s.Text(10);
  m.registered_by = s.Text(11);
  m.created = absl::FromUnixMicros(s.Int(12));
  return out;
}

}  // namespace

absl::Status ValidateModelName(absl::string_view name, absl::string_view what) {
  bool ok = !name.empty() && name.size() <= 63 && name[0] != '.' && name[0] != '-';
  for (char c : name) {
    ok = ok &&
         (absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-');
  }
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      what, " \"", name.substr(0, 80),
      "\": expected 1-63 letters, digits, '.', '_' or '-', not starting with '.' or '-'"));
}

absl::StatusOr<ModelRef> ParseModelRef(absl::string_view text) {
  ModelRef ref;
  if (const size_t at = text.find('@'); at != absl::string_view::npos) {
    ref.alias = std::string(text.substr(at + 1));
    DLP_RETURN_IF_ERROR(ValidateModelName(ref.alias, "alias"));
    text = text.substr(0, at);
  } else if (const size_t colon = text.find(':'); colon != absl::string_view::npos) {
    int version = 0;
    if (!absl::SimpleAtoi(text.substr(colon + 1), &version) || version <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "model \"", text.substr(0, 80), "\": expected NAME, NAME:VERSION or NAME@ALIAS"));
    }
    ref.version = version;
    text = text.substr(0, colon);
  }
  ref.name = std::string(text);
  DLP_RETURN_IF_ERROR(ValidateModelName(ref.name));
  return ref;
}

absl::StatusOr<std::unique_ptr<ModelStore>> ModelStore::Open(const std::string& path) {
  DLP_ASSIGN_OR_RETURN(Database db, OpenStore(path));
  return std::unique_ptr<ModelStore>(new ModelStore(std::move(db)));
}

absl::StatusOr<std::vector<StoredModel>> ModelStore::Select(
    absl::string_view where, const std::vector<std::string>& params) {
  DLP_ASSIGN_OR_RETURN(Statement s,
                       db_.Prepare(absl::StrCat("SELECT ", kColumns, " FROM models ", where,
                                                " ORDER BY tenant, name, version")));
  for (size_t i = 0; i < params.size(); ++i) s.Bind(static_cast<int>(i + 1), params[i]);
  std::vector<StoredModel> out;
  while (true) {
    DLP_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(ReadRow(s));
  }
  DLP_ASSIGN_OR_RETURN(
      Statement a, db_.Prepare("SELECT tenant, name, alias, version FROM model_aliases ORDER BY "
                               "alias"));
  while (true) {
    DLP_ASSIGN_OR_RETURN(bool row, a.Step());
    if (!row) break;
    for (StoredModel& m : out) {
      if (m.tenant == a.Text(0) && m.model.name == a.Text(1) && m.model.version == a.Int(3)) {
        m.model.aliases.push_back(a.Text(2));
      }
    }
  }
  return out;
}

absl::StatusOr<ModelVersion> ModelStore::Add(const std::string& tenant, ModelVersion model,
                                             const std::string& alias) {
  DLP_RETURN_IF_ERROR(ValidateModelName(model.name));
  if (!alias.empty()) DLP_RETURN_IF_ERROR(ValidateModelName(alias, "alias"));
  std::lock_guard<std::mutex> lock(mu_);
  Transaction tx(db_);
  DLP_RETURN_IF_ERROR(tx.begin_status());
  DLP_ASSIGN_OR_RETURN(Statement next,
                       db_.Prepare("SELECT COALESCE(MAX(version), 0) + 1 FROM models "
                                   "WHERE tenant=? AND name=?"));
  next.Bind(1, tenant).Bind(2, model.name);
  DLP_ASSIGN_OR_RETURN(bool row, next.Step());
  model.version = row ? static_cast<int>(next.Int(0)) : 1;
  model.created = absl::FromUnixMicros(absl::ToUnixMicros(absl::Now()));
  DLP_ASSIGN_OR_RETURN(
      Statement s, db_.Prepare(absl::StrCat("INSERT INTO models (", kColumns,
                                            ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")));
  s.Bind(1, tenant)
      .Bind(2, model.name)
      .Bind(3, int64_t{model.version})
      .Bind(4, model.file)
      .Bind(5, model.size)
      .Bind(6, model.sha256)
      .Bind(7, model.job)
      .Bind(8, model.job_spec)
      .Bind(9, MetricsJson(model.metrics))
      .Bind(10, LabelsJson(model.labels))
      .Bind(11, model.git_commit)
      .Bind(12, model.registered_by)
      .Bind(13, absl::ToUnixMicros(model.created));
  DLP_RETURN_IF_ERROR(s.Run());
  if (!alias.empty()) {
    DLP_ASSIGN_OR_RETURN(Statement a, db_.Prepare("INSERT OR REPLACE INTO model_aliases "
                                                  "(tenant, name, alias, version) VALUES "
                                                  "(?, ?, ?, ?)"));
    a.Bind(1, tenant).Bind(2, model.name).Bind(3, alias).Bind(4, int64_t{model.version});
    DLP_RETURN_IF_ERROR(a.Run());
    model.aliases = {alias};
  }
  DLP_RETURN_IF_ERROR(tx.Commit());
  return model;
}

absl::StatusOr<std::vector<StoredModel>> ModelStore::List(
    const std::optional<std::string>& tenant) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!tenant) return Select("", {});
  return Select("WHERE tenant=?", {*tenant});
}

absl::StatusOr<ModelVersion> ModelStore::FindLocked(const std::string& tenant,
                                                    const ModelRef& ref) {
  std::string version;
  if (ref.version) {
    version = absl::StrCat(*ref.version);
  } else if (!ref.alias.empty()) {
    DLP_ASSIGN_OR_RETURN(Statement a, db_.Prepare("SELECT version FROM model_aliases WHERE "
                                                  "tenant=? AND name=? AND alias=?"));
    a.Bind(1, tenant).Bind(2, ref.name).Bind(3, ref.alias);
    DLP_ASSIGN_OR_RETURN(bool row, a.Step());
    if (!row) {
      return absl::NotFoundError(absl::StrCat("no model ", ref.name, "@", ref.alias));
    }
    version = absl::StrCat(a.Int(0));
  }
  DLP_ASSIGN_OR_RETURN(
      std::vector<StoredModel> found,
      Select(version.empty() ? "WHERE tenant=? AND name=?"
                             : "WHERE tenant=? AND name=? AND version=CAST(? AS INTEGER)",
             version.empty() ? std::vector<std::string>{tenant, ref.name}
                             : std::vector<std::string>{tenant, ref.name, version}));
  if (found.empty()) {
    return absl::NotFoundError(
        absl::StrCat("no model ", ref.name, version.empty() ? "" : absl::StrCat(":", version)));
  }
  return found.back().model;  // the latest when no version was named
}

absl::StatusOr<ModelVersion> ModelStore::Find(const std::string& tenant, const ModelRef& ref) {
  std::lock_guard<std::mutex> lock(mu_);
  return FindLocked(tenant, ref);
}

absl::StatusOr<ModelVersion> ModelStore::SetAlias(const std::string& tenant,
                                                  const std::string& name, const std::string& alias,
                                                  int version) {
  DLP_RETURN_IF_ERROR(ValidateModelName(name));
  DLP_RETURN_IF_ERROR(ValidateModelName(alias, "alias"));
  std::lock_guard<std::mutex> lock(mu_);
  Transaction tx(db_);
  DLP_RETURN_IF_ERROR(tx.begin_status());
  DLP_RETURN_IF_ERROR(FindLocked(tenant, ModelRef{name, version, ""}).status());
  DLP_ASSIGN_OR_RETURN(Statement a, db_.Prepare("INSERT OR REPLACE INTO model_aliases "
                                                "(tenant, name, alias, version) VALUES "
                                                "(?, ?, ?, ?)"));
  a.Bind(1, tenant).Bind(2, name).Bind(3, alias).Bind(4, int64_t{version});
  DLP_RETURN_IF_ERROR(a.Run());
  DLP_RETURN_IF_ERROR(tx.Commit());
  return FindLocked(tenant, ModelRef{name, version, ""});
}

}  // namespace dlp::server
