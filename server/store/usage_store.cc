// JobStore's usage samples: written a round at a time, bounded per replica.
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "dlp/status.h"
#include "server/store/job_store.h"

namespace dlp::server {
namespace {

constexpr absl::string_view kUsageColumns =
    "replica, pid, time_us, cpu_percent, rss_bytes, gpu_util_percent, gpu_memory_bytes";

ReplicaUsage ReadUsageRow(const Statement& s) {
  ReplicaUsage u;
  u.replica = s.Text(0);
  u.pid = static_cast<int>(s.Int(1));
  u.time = absl::FromUnixMicros(s.Int(2));
  u.cpu_percent = s.Double(3);
  u.rss_bytes = s.Int(4);
  if (s.OptionalInt(5)) u.gpu_util_percent = s.Double(5);  // NULL: stays -1
  if (auto mem = s.OptionalInt(6)) u.gpu_memory_bytes = *mem;
  return u;
}

absl::StatusOr<std::vector<ReplicaUsage>> ReadAll(Statement& s) {
  std::vector<ReplicaUsage> out;
  while (true) {
    DLP_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(ReadUsageRow(s));
  }
  return out;
}

}  // namespace

absl::Status JobStore::AddUsage(const std::vector<UsageSample>& samples, int keep_per_replica) {
  if (samples.empty()) return absl::OkStatus();
  // One commit (one fsync) per round, not per sample.
  Transaction tx(db_);
  DLP_RETURN_IF_ERROR(tx.begin_status());
  DLP_ASSIGN_OR_RETURN(
      Statement insert,
      db_.Prepare("INSERT INTO usage_samples (job_id, replica, pid, time_us, cpu_percent, "
                  "rss_bytes, gpu_util_percent, gpu_memory_bytes) VALUES (?,?,?,?,?,?,?,?)"));
  std::set<std::pair<int64_t, std::string>> touched;
  for (const UsageSample& sample : samples) {
    const ReplicaUsage& u = sample.usage;
    insert.Reset();
    insert.Bind(1, sample.seq).Bind(2, u.replica).Bind(3, static_cast<int64_t>(u.pid));
    insert.Bind(4, static_cast<int64_t>(absl::ToUnixMicros(u.time)));
    insert.BindDouble(5, u.cpu_percent).Bind(6, u.rss_bytes);
    if (u.gpu_util_percent >= 0) {
      insert.BindDouble(7, u.gpu_util_percent);
    } else {
      insert.BindNull(7);
    }
    insert.Bind(
        8, u.gpu_memory_bytes >= 0 ? std::optional<int64_t>(u.gpu_memory_bytes) : std::nullopt);
    DLP_RETURN_IF_ERROR(insert.Run());
    touched.insert({sample.seq, u.replica});
  }
  DLP_ASSIGN_OR_RETURN(
      Statement trim,
      db_.Prepare("DELETE FROM usage_samples WHERE job_id=?1 AND replica=?2 AND id NOT IN "
                  "(SELECT id FROM usage_samples WHERE job_id=?1 AND replica=?2 "
                  "ORDER BY id DESC LIMIT ?3)"));
  for (const auto& [seq, replica] : touched) {
    trim.Reset();
    trim.Bind(1, seq).Bind(2, replica).Bind(3, static_cast<int64_t>(keep_per_replica));
    DLP_RETURN_IF_ERROR(trim.Run());
  }
  return tx.Commit();
}

absl::StatusOr<std::vector<ReplicaUsage>> JobStore::LatestUsage(int64_t seq) {
  DLP_ASSIGN_OR_RETURN(
      Statement s,
      db_.Prepare(absl::StrCat("SELECT ", kUsageColumns,
                               " FROM usage_samples WHERE id IN (SELECT MAX(id) FROM "
                               "usage_samples WHERE job_id=? GROUP BY replica) ORDER BY replica")));
  s.Bind(1, seq);
  return ReadAll(s);
}

absl::StatusOr<std::vector<ReplicaUsage>> JobStore::UsageHistory(int64_t seq,
                                                                 const std::string& replica) {
  DLP_ASSIGN_OR_RETURN(Statement s,
                       db_.Prepare(absl::StrCat("SELECT ", kUsageColumns,
                                                " FROM usage_samples WHERE job_id=? AND replica=? "
                                                "ORDER BY id")));
  s.Bind(1, seq).Bind(2, replica);
  return ReadAll(s);
}

}  // namespace dlp::server
