// Sweeps and their trials in dlpd's SQLite file (tables `sweeps` and
// `sweep_trials`, migrations.cc): what dlpd's sweep controller needs to go on
// after a restart. A trial's row is committed before its job is submitted
// (dlp/sweep_driver.h). Thread-safe: every method may be called from any thread.
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dlp/sweep.h"
#include "server/store/sqlite.h"

namespace dlp::server {

class SweepStore {
 public:
  // Opens its own connection to the database at `path` and runs pending
  // migrations (the same ones as JobStore::Open).
  static absl::StatusOr<std::unique_ptr<SweepStore>> Open(const std::string& path);

  // Inserts a new sweep (its trials too, normally none); returns it with its id.
  absl::StatusOr<Sweep> Insert(Sweep sweep);
  // Rewrites the sweep's row and the trials numbered in `trials`, in one commit.
  absl::Status Save(const Sweep& sweep, const std::set<int>& trials);
  // NotFound when there is no such sweep.
  absl::StatusOr<Sweep> Get(const std::string& id);
  // Every sweep, oldest first, with its trials.
  absl::StatusOr<std::vector<Sweep>> List();

 private:
  explicit SweepStore(Database db) : db_(std::move(db)) {}
  absl::Status WriteTrial(int64_t sweep, const SweepTrial& t);
  absl::Status LoadTrials(Sweep& sweep);

  std::mutex mu_;  // serialises use of db_
  Database db_;
};

}  // namespace dlp::server
