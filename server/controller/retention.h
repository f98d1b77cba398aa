// Retention of ended jobs' files (`dlpd --retain-days`, `--retain-bytes`):
// the logs, traces, status and output of jobs that ended long enough ago, then
// of the oldest until the rest fit the byte budget, are removed (through the
// trust boundary, contract/tenant_tree.h); the records, events and metrics
// summaries stay in dlpd's database, and registered models (copies in the
// blob store) are never touched. Thread-compatible: one caller at a time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace dlp::server {

struct RetentionOptions {
  absl::Duration max_age = absl::ZeroDuration();  // zero: files are kept whatever their age
  int64_t max_bytes = 0;                          // 0: no budget
  bool enabled() const { return max_age > absl::ZeroDuration() || max_bytes > 0; }
};

// An ended job whose folder may still hold files.
struct EndedJob {
  std::string id;
  absl::Time finished;
};

class Retention {
 public:
  // `jobs_dir`: STATE/jobs.
  Retention(RetentionOptions options, std::string jobs_dir)
      : options_(options), jobs_dir_(std::move(jobs_dir)) {}

  bool enabled() const { return options_.enabled(); }

  // One pass over `ended`, oldest first: returns the ids whose files it
  // removed, each with why ("older than 30d", "over the 50Gi budget").
  std::vector<std::pair<std::string, std::string>> Prune(const std::vector<EndedJob>& ended,
                                                         absl::Time now) const;

 private:
  RetentionOptions options_;
  std::string jobs_dir_;
};

}  // namespace dlp::server
