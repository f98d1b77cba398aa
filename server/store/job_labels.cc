#include "server/store/job_labels.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "dlp/status.h"
#include "nlohmann/json.hpp"
#include "server/store/stored_spec.h"

namespace dlp::server {

// json_each yields one row per member, a string's value as its text. CASE
// keeps json_each from a column that is NULL or not JSON (an error for the
// whole query): such a row matches no label.
const absl::string_view kLabelCondition =
    "CASE WHEN json_valid(jobs.labels) THEN EXISTS (SELECT 1 FROM json_each(jobs.labels) "
    "WHERE json_each.key=? AND json_each.value=?) END";

std::string LabelsColumn(const Labels& labels) {
  return nlohmann::json(labels).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

absl::StatusOr<Labels> ReadLabelsColumn(absl::string_view text) {
  const nlohmann::json value = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (value.is_discarded()) return absl::InvalidArgumentError("labels: invalid JSON");
  if (!value.is_object()) return absl::InvalidArgumentError("labels: expected a JSON object");
  Labels labels;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (!it->is_string()) {
      return absl::InvalidArgumentError(absl::StrCat("labels.", it.key(), ": expected a string"));
    }
    labels.emplace(it.key(), it->get<std::string>());
  }
  return labels;
}

absl::Status BackfillLabels(Database& db) {
  std::vector<std::pair<int64_t, std::string>> filled;
  {
    DLP_ASSIGN_OR_RETURN(Statement s, db.Prepare("SELECT id, spec FROM jobs WHERE labels IS NULL"));
    while (true) {
      DLP_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) break;
      absl::StatusOr<JobSpec> spec = ReadStoredSpec(s.Text(1));
      if (spec.ok()) filled.emplace_back(s.Int(0), LabelsColumn(spec->labels));
    }
  }
  if (filled.empty()) return absl::OkStatus();
  Transaction tx(db);
  DLP_RETURN_IF_ERROR(tx.begin_status());
  DLP_ASSIGN_OR_RETURN(Statement update,
                       db.Prepare("UPDATE jobs SET labels=? WHERE id=? AND labels IS NULL"));
  for (const auto& [id, labels] : filled) {
    update.Reset().Bind(1, labels).Bind(2, id);
    DLP_RETURN_IF_ERROR(update.Run());
  }
  return tx.Commit();
}

}  // namespace dlp::server
