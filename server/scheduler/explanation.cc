#include "server/scheduler/explanation.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dlp::server {

std::string MachineShortfall(const ResourceVector& demand, const ResourceVector& free) {
  std::vector<std::string> parts;
  if (demand.cpu_millis > free.cpu_millis) {
    parts.push_back(absl::StrCat("needs ", DescribeCpus(demand.cpu_millis), ", ",
                                 DescribeCpus(std::max<int64_t>(free.cpu_millis, 0)), " free"));
  }
  if (demand.memory_bytes > 0 && demand.memory_bytes > free.memory_bytes) {
    parts.push_back(absl::StrCat("needs ", DescribeMemory(demand.memory_bytes), " of memory, ",
                                 DescribeMemory(std::max<int64_t>(free.memory_bytes, 0)), " free"));
  }
  if (demand.gpu_millis > free.gpu_millis) {
    parts.push_back(absl::StrCat("needs ", DescribeGpus(demand.gpu_millis), ", ",
                                 std::max<int64_t>(free.gpu_millis, 0) / 1000.0, " free"));
  }
  return absl::StrJoin(parts, "; ");
}

namespace fair_share {

std::string Ordinal(int n) {
  const int tens = n % 100, ones = n % 10;
  const char* suffix = "th";
  if (tens < 11 || tens > 13) {
    if (ones == 1) suffix = "st";
    if (ones == 2) suffix = "nd";
    if (ones == 3) suffix = "rd";
  }
  return absl::StrCat(n, suffix);
}

std::string StartsIn(absl::Time at, absl::Time now) {
  const int64_t seconds =
      std::max<int64_t>(0, absl::ToInt64Seconds(absl::Ceil(at - now, absl::Seconds(1))));
  if (seconds < 60) return absl::StrCat("in ", seconds, " s");
  const int64_t minutes = (seconds + 59) / 60;
  if (minutes < 60) return absl::StrCat("in ", minutes, " min");
  if (minutes % 60 == 0) return absl::StrCat("in ", minutes / 60, " h");
  return absl::StrCat("in ", minutes / 60, " h ", minutes % 60, " min");
}

std::string JobList(const std::vector<int64_t>& seqs) {
  return absl::StrCat(seqs.size() == 1 ? "job " : "jobs ", absl::StrJoin(seqs, ", "));
}

std::string DescribeBlock(const QuotaModel& model, const Ledger& ledger, int queue,
                          const Amounts& demand, const ResourceVector& demand_vector, Block block) {
  switch (block.kind) {
    case Block::kNone:
      return "fits";
    case Block::kPlacement:
      return "its GPU replicas do not fit on the free devices";
    case Block::kMachine: {
      std::string shortfall = MachineShortfall(demand_vector, model.FreeOf(ledger));
      if (shortfall.empty()) {  // a flavour: "needs 2 gpu.h100, 1 gpu.h100 free"
        shortfall = absl::StrCat("needs ", model.Describe(block.dim, demand[block.dim]), ", ",
                                 model.Describe(block.dim, ledger.free[block.dim]), " free");
      }
      return "waiting for resources: " + shortfall;
    }
    case Block::kQueueLimit:
    case Block::kCohort:
      break;
  }
  const QueueQuota& q = model.queue(queue);
  const int d = block.dim;
  const std::string unit = model.Describe(d, model.Used(ledger, queue, d));
  const std::string nominal = model.Describe(d, q.nominal[d]);
  // "4 gpu" -> the number alone for "4/4 gpu".
  auto number = [](const std::string& s) { return s.substr(0, s.find(' ')); };
  std::string out =
      absl::StrCat("queue ", q.config.name, " uses ", number(unit), "/", number(nominal), " ",
                   model.dim_name(d), " (nominal ", number(nominal));
  if (!model.shared_cohort(q.cohort)) return out + ", no cohort to borrow from)";
  if (q.max_use[d] != kUnlimited) {
    absl::StrAppend(&out, ", may borrow ", number(model.Describe(d, q.max_use[d] - q.nominal[d])));
  }
  const int64_t pool_free = std::max<int64_t>(
      0, model.pool(q.cohort)[d] - ledger.over[static_cast<size_t>(q.cohort) * model.dims() + d]);
  absl::StrAppend(&out, ", cohort has ", number(model.Describe(d, pool_free)), " free)");
  return out;
}

std::string ReclaimReason(int64_t preemptor, const std::string& queue, const std::string& what) {
  return absl::StrCat("Preempted by job ", preemptor, " (queue ", queue, " reclaiming ", what, ")");
}

std::string PriorityReason(int64_t preemptor, int priority, const std::string& queue) {
  return absl::StrCat("Preempted by job ", preemptor, " (priority ", priority, " in queue ", queue,
                      ")");
}

}  // namespace fair_share
}  // namespace dlp::server
