#include "server/scheduler/fair_share_policy.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "server/scheduler/elastic.h"
#include "server/scheduler/fair_share_round.h"
#include "server/scheduler/quota_accounting.h"

namespace dlp::server {
namespace {

using fair_share::Amounts;
using fair_share::QuotaModel;

// "8 GPUs", "3 CPUs", "64Gi of memory", "2 gpu.h100".
std::string Needs(const QuotaModel& model, int d, int64_t amount) {
  switch (d) {
    case fair_share::kCpu:
      return DescribeCpus(amount);
    case fair_share::kMemory:
      return DescribeMemory(amount) + " of memory";
    case fair_share::kGpu:
      return DescribeGpus(amount);
    default:
      return model.Describe(d, amount);
  }
}

// The bare number of `amount` in dimension d: "6", "64Gi".
std::string Number(const QuotaModel& model, int d, int64_t amount) {
  const std::string s = model.Describe(d, amount);
  return s.substr(0, s.find(' '));
}

}  // namespace

absl::Status FairSharePolicy::Admit(const PendingJob& whole, const Snapshot& snapshot) const {
  if (absl::Status machine = SchedulingPolicy::Admit(whole, snapshot); !machine.ok()) {
    return machine;
  }
  // An elastic job needs only its minimum within the queue's quota.
  const PendingJob job = whole.elastic.elastic() ? AtSize(whole, whole.elastic.min) : whole;
  if (snapshot.queues.empty()) return absl::OkStatus();
  std::vector<std::string> names;
  const QueueConfig* config = nullptr;
  for (const QueueConfig& q : snapshot.queues) {
    names.push_back(q.name);
    if (q.name == job.queue) config = &q;
  }
  if (config == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "queue \"", job.queue, "\" does not exist; queues: ", absl::StrJoin(names, ", ")));
  }
  if (job.priority < config->min_priority || job.priority > config->max_priority) {
    return absl::InvalidArgumentError(absl::StrCat("priority ", job.priority, " is outside queue ",
                                                   job.queue, "'s range ", config->min_priority,
                                                   "..", config->max_priority));
  }
  Snapshot queues_only{
      .capacity = snapshot.capacity, .devices = snapshot.devices, .queues = snapshot.queues};
  const QuotaModel model(queues_only);
  const int q = model.QueueIndex(job.queue);
  const fair_share::QueueQuota& quota = model.queue(q);
  const Amounts demand = model.AmountsOf(job.demand);
  std::vector<std::string> parts;
  for (int d = 0; d < model.dims(); ++d) {
    if (demand[d] <= 0 || !quota.limited[d]) continue;
    const int64_t most = model.MostUsable(q, d);
    if (demand[d] > most) {
      const std::string borrow =
          model.shared_cohort(quota.cohort)
              ? absl::StrCat("may borrow ", Number(model, d, most - quota.nominal[d]))
              : "no cohort to borrow from";
      parts.push_back(absl::StrCat("needs ", Needs(model, d, demand[d]), "; queue ", job.queue,
                                   " may use at most ", Number(model, d, most), " (nominal ",
                                   Number(model, d, quota.nominal[d]), ", ", borrow, ")"));
    } else if (!job.preemptible && demand[d] > quota.nominal[d]) {
      parts.push_back(absl::StrCat("needs ", Needs(model, d, demand[d]),
                                   "; a job with preemptible: false must fit in queue ", job.queue,
                                   "'s nominal quota of ", Number(model, d, quota.nominal[d])));
    }
  }
  if (parts.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("the job can never fit", MinimumWords(whole),
                                                 ": ", absl::StrJoin(parts, "; ")));
}

Decision FairSharePolicy::Schedule(const Snapshot& snapshot) const {
  return fair_share::FairShareRound(snapshot).Run();
}

}  // namespace dlp::server
