// The labels column of the jobs table: each job's spec.labels as a JSON
// object, written with the spec, so that a listing of summaries and a filter
// by label read them without parsing every spec (the most of a long
// listing's time). NULL where the spec does not read back (stored_spec.h):
// readers then parse the spec and quarantine the row, as without the column.
// dlpd never rewrites a spec; one edited in the database by hand afterwards
// is quarantined by Get and full listings, while summaries keep the labels
// it was stored with.
#pragma once

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "server/store/sqlite.h"

namespace dlp::server {

using Labels = std::map<std::string, std::string>;

// The column's text for `labels`: a JSON object of strings.
std::string LabelsColumn(const Labels& labels);
// Reads the column back; InvalidArgument when it is not such an object.
absl::StatusOr<Labels> ReadLabelsColumn(absl::string_view text);

// The SQL condition "the row's labels hold key = value", for a WHERE clause
// on the jobs table; binds two parameters, the key then the value.
extern const absl::string_view kLabelCondition;

// Fills the column of every row that has none yet (those stored before the
// column existed) from its spec, in one commit; a spec that does not read
// back leaves it NULL. Nothing else of a row changes.
absl::Status BackfillLabels(Database& db);

}  // namespace dlp::server
