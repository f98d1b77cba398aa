#include "server/scheduler/simulator.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <optional>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "server/scheduler/elastic.h"
#include "server/scheduler/fair_share_history.h"
#include "server/scheduler/sim_invariants.h"
#include "server/scheduler/sim_metrics.h"

namespace dlp::server {
namespace {

absl::Duration ThreadCpuTime() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return absl::DurationFromTimespec(ts);
}

enum class Phase { kFuture, kWaiting, kRunning, kStopping, kDone, kRejected };

struct SimJobState {
  const SimJob* sim = nullptr;
  Phase phase = Phase::kFuture;
  absl::Duration left;  // runtime still to run (an elastic job: at its count)
  absl::Time run_started;
  // An elastic job: its size, and when its current stretch at that size
  // began (work is done at size/count of the rate at its count).
  int size = 0;
  absl::Time stretch_started;
  ResizeDecision resizing;  // the shrink under way
  int epoch = 0;  // bumped when a scheduled end no longer holds
  int preemptions = 0;
  std::optional<absl::Time> head_estimate;  // the first one it had as a queue head
};

// A job's run ends (completion or time limit), or a victim has stopped.
struct SimEvent {
  enum Kind { kEnd, kStopped, kResized } kind;
  absl::Time at;
  int64_t seq;
  int epoch;
  bool operator>(const SimEvent& o) const { return at != o.at ? at > o.at : seq > o.seq; }
};

class Run {
 public:
  Run(const SchedulingPolicy& policy, const SimConfig& config, std::vector<SimJob> jobs)
      : policy_(policy),
        config_(config),
        jobs_(std::move(jobs)),
        checker_(config.max_unanswered_preemptions),
        metrics_(config, Earliest(), Latest()),
        history_(config.fair_share_half_life) {
    snapshot_.capacity = config.capacity;
    snapshot_.devices = config.devices;
    snapshot_.queues = config.queues;
    snapshot_.resize_interval = config.resize_interval;
    snapshot_.preempt_exempt_time = config.preempt_exempt_time;
  }

  SimResult Go();

 private:
  absl::Time Earliest() const {
    absl::Time t = absl::InfiniteFuture();
    for (const SimJob& j : jobs_) t = std::min(t, j.job.submitted);
    return jobs_.empty() ? absl::UnixEpoch() : t;
  }
  absl::Time Latest() const {
    absl::Time t = absl::InfinitePast();
    for (const SimJob& j : jobs_) t = std::max(t, j.job.submitted);
    return jobs_.empty() ? absl::UnixEpoch() : t;
  }
  void Arrive(SimJobState& s);
  void End(SimJobState& s);
  void Stopped(SimJobState& s);
  void Decide();
  void Start(const StartDecision& start);
  void Preempt(const PreemptDecision& p);
  // Elastic jobs (sim_elastic.cc).
  void Resize(const ResizeDecision& r);
  void Resized(SimJobState& s);
  double Rate(const SimJobState& s) const;
  // Credits the work of `s`'s current stretch; the work done in it.
  absl::Duration CreditStretch(SimJobState& s);
  void ScheduleEnd(SimJobState& s);
  bool AnyCanGrow() const;
  void AddWaiting(PendingJob job);
  std::vector<PendingJob>::iterator FindWaiting(int64_t seq);
  RunningJob TakeRunning(int64_t seq);

  const SchedulingPolicy& policy_;
  const SimConfig& config_;
  std::vector<SimJob> jobs_;
  InvariantChecker checker_;
  SimMetrics metrics_;
  FairShareHistory history_;
  SimResult result_;
  Snapshot snapshot_;  // kept current: pending by seq, running in any order
  std::unordered_map<int64_t, size_t> running_index_;
  std::unordered_map<int64_t, SimJobState> states_;
  std::priority_queue<SimEvent, std::vector<SimEvent>, std::greater<>> events_;
  absl::Time now_;
};

std::vector<PendingJob>::iterator Run::FindWaiting(int64_t seq) {
  auto it = std::lower_bound(snapshot_.pending.begin(), snapshot_.pending.end(), seq,
                             [](const PendingJob& j, int64_t s) { return j.seq < s; });
  return it != snapshot_.pending.end() && it->seq == seq ? it : snapshot_.pending.end();
}

void Run::AddWaiting(PendingJob job) {
  metrics_.Waiting(job.tenant, job.demand, +1);
  auto it = std::lower_bound(snapshot_.pending.begin(), snapshot_.pending.end(), job.seq,
                             [](const PendingJob& j, int64_t s) { return j.seq < s; });
  snapshot_.pending.insert(it, std::move(job));
}

RunningJob Run::TakeRunning(int64_t seq) {
  const size_t i = running_index_.at(seq);
  RunningJob job = std::move(snapshot_.running[i]);
  running_index_.erase(seq);
  if (i + 1 != snapshot_.running.size()) {
    snapshot_.running[i] = std::move(snapshot_.running.back());
    running_index_[snapshot_.running[i].seq] = i;
  }
  snapshot_.running.pop_back();
  metrics_.Hold(job.tenant, job.demand, -1);
  return job;
}

void Run::Arrive(SimJobState& s) {
  snapshot_.now = now_;
  if (!policy_.Admit(s.sim->job, snapshot_).ok()) {
    s.phase = Phase::kRejected;
    ++result_.rejected;
    return;
  }
  s.phase = Phase::kWaiting;
  AddWaiting(s.sim->job);
}

void Run::End(SimJobState& s) {
  CreditStretch(s);
  if (s.left > absl::Milliseconds(1)) ++result_.timed_out;
  s.phase = Phase::kDone;
  TakeRunning(s.sim->job.seq);
  ++result_.completed;
  metrics_.Completed(now_ - s.sim->job.submitted);
  result_.completion[s.sim->job.seq] = now_ - s.sim->job.submitted;
}

void Run::Stopped(SimJobState& s) {
  TakeRunning(s.sim->job.seq);
  s.phase = Phase::kWaiting;
  PendingJob again = s.sim->job;
  again.preemptions = s.preemptions;
  AddWaiting(std::move(again));
}

void Run::Start(const StartDecision& start) {
  auto found = states_.find(start.seq);
  if (found == states_.end() || found->second.phase != Phase::kWaiting) return;  // checked
  SimJobState& s = found->second;
  auto it = FindWaiting(start.seq);
  PendingJob job = std::move(*it);
  snapshot_.pending.erase(it);
  metrics_.Waiting(job.tenant, job.demand, -1);
  if (start.size > 0) job = AtSize(job, start.size);
  metrics_.Hold(job.tenant, job.demand, +1);
  if (s.head_estimate) {
    if (now_ > *s.head_estimate + config_.cycle) {
      ++result_.late_heads;
      if (config_.strict_head_estimates) {
        checker_.Fail("late-head",
                      absl::StrCat("job ", job.seq, " started at ", absl::FormatTime(now_),
                                   ", estimated ", absl::FormatTime(*s.head_estimate)));
      }
    }
    s.head_estimate.reset();
  }
  s.phase = Phase::kRunning;
  s.run_started = s.stretch_started = now_;
  // A policy that knows nothing of elastic jobs starts them whole.
  s.size = job.elastic.elastic() && start.size == 0 ? job.elastic.max : start.size;
  result_.first_wait.try_emplace(job.seq, now_ - job.submitted);
  ScheduleEnd(s);
  running_index_[job.seq] = snapshot_.running.size();
  snapshot_.running.push_back({.seq = job.seq,
                               .tenant = std::move(job.tenant),
                               .queue = std::move(job.queue),
                               .priority = job.priority,
                               .demand = std::move(job.demand),
                               .placement = start.placement,
                               .started = now_,
                               .time_limit = job.time_limit,
                               .preemptible = job.preemptible,
                               .submitted = job.submitted,
                               .preemptions = job.preemptions,
                               .elastic = job.elastic,
                               .size = s.size,
                               .resized = now_});
}

void Run::Preempt(const PreemptDecision& p) {
  auto found = states_.find(p.victim);
  if (found == states_.end() || found->second.phase != Phase::kRunning) return;  // checked
  SimJobState& s = found->second;
  if (s.run_started == now_) return;  // started by this very decision: checked
  s.phase = Phase::kStopping;
  // Work is lost back to its last checkpoint, counted in time at its count.
  const absl::Duration since = std::max(absl::ZeroDuration(), now_ - s.stretch_started);
  const absl::Duration kept = config_.checkpoint_interval > absl::ZeroDuration()
                                  ? absl::Floor(since, config_.checkpoint_interval)
                                  : since;
  s.stretch_started = now_ - kept;
  CreditStretch(s);
  result_.lost_work += (since - kept) * Rate(s);
  ++s.epoch;
  ++s.preemptions;
  ++result_.preemptions;
  result_.max_preemptions_of_a_job = std::max(result_.max_preemptions_of_a_job, s.preemptions);
  snapshot_.running[running_index_.at(p.victim)].stopping = true;
  events_.push({SimEvent::kStopped, now_ + config_.grace, p.victim, s.epoch});
}

double Run::Rate(const SimJobState& s) const {
  const ElasticRole& e = s.sim->job.elastic;
  return e.elastic() && s.size > 0 ? static_cast<double>(s.size) / e.max : 1.0;
}

absl::Duration Run::CreditStretch(SimJobState& s) {
  const absl::Duration ran = std::max(absl::ZeroDuration(), now_ - s.stretch_started);
  const absl::Duration done = std::min(s.left, ran * Rate(s));
  s.left -= done;
  s.stretch_started = std::max(s.stretch_started, now_);
  return done;
}

void Run::ScheduleEnd(SimJobState& s) {
  absl::Duration run_for = s.left / Rate(s);
  const absl::Duration limit = s.sim->job.time_limit;
  if (limit > absl::ZeroDuration()) run_for = std::min(run_for, s.run_started + limit - now_);
  events_.push({SimEvent::kEnd, now_ + run_for, s.sim->job.seq, s.epoch});
}

bool Run::AnyCanGrow() const {
  for (const RunningJob& job : snapshot_.running) {
    if (job.elastic.elastic() && job.size < job.elastic.max && job.resizing_to == 0 &&
        !job.stopping) {
      return true;
    }
  }
  return false;
}

// Every rank stops (after a checkpoint, so no work is lost) and the group
// re-forms at the new size after `grace`, doing no work meanwhile. A grow
// holds its new size from the decision, a shrink its old one until then.
void Run::Resize(const ResizeDecision& r) {
  auto found = states_.find(r.seq);
  if (found == states_.end() || found->second.phase != Phase::kRunning) return;  // checked
  SimJobState& s = found->second;
  RunningJob& job = snapshot_.running[running_index_.at(r.seq)];
  if (job.resizing_to != 0 || !job.elastic.elastic()) return;  // checked
  CreditStretch(s);
  s.stretch_started = now_ + config_.grace;
  ++s.epoch;
  ++(r.to > r.from ? result_.grows : result_.shrinks);
  job.resizing_to = r.to;
  if (r.to > r.from) {
    metrics_.Hold(job.tenant, job.demand, -1);
    job.demand = DemandAtSize(job.elastic, job.demand, job.size, r.to);
    job.placement = r.placement;
    job.size = r.to;
    metrics_.Hold(job.tenant, job.demand, +1);
  }
  s.resizing = r;
  events_.push({SimEvent::kResized, now_ + config_.grace, r.seq, s.epoch});
}

void Run::Resized(SimJobState& s) {
  RunningJob& job = snapshot_.running[running_index_.at(s.sim->job.seq)];
  metrics_.Hold(job.tenant, job.demand, -1);
  job.demand = DemandAtSize(job.elastic, job.demand, job.size, s.resizing.to);
  job.placement = s.resizing.placement;
  job.size = s.size = s.resizing.to;
  job.resizing_to = 0;
  job.resized = now_;
  metrics_.Hold(job.tenant, job.demand, +1);
  ScheduleEnd(s);
}

void Run::Decide() {
  snapshot_.now = now_;
  history_.Fill(snapshot_);
  const absl::Duration cpu0 = ThreadCpuTime();
  const auto t0 = std::chrono::steady_clock::now();
  Decision decision = policy_.Schedule(snapshot_);
  const auto wall = std::chrono::steady_clock::now() - t0;
  metrics_.Decided(absl::FromChrono(wall), ThreadCpuTime() - cpu0,
                   static_cast<int>(snapshot_.pending.size()));
  checker_.Check(snapshot_, decision);
  for (const auto& [seq, why] : decision.waiting) {
    if (why.position != 1 || !why.estimated_start) continue;
    auto s = states_.find(seq);
    if (s != states_.end() && !s->second.head_estimate) {
      s->second.head_estimate = why.estimated_start;
    }
  }
  for (const StartDecision& start : decision.start) Start(start);
  for (const PreemptDecision& p : decision.preempt) Preempt(p);
  for (const ResizeDecision& r : decision.resize) Resize(r);
}

SimResult Run::Go() {
  result_.jobs = static_cast<int>(jobs_.size());
  if (jobs_.empty()) return result_;
  std::stable_sort(jobs_.begin(), jobs_.end(), [](const SimJob& a, const SimJob& b) {
    return a.job.submitted < b.job.submitted;
  });
  for (const SimJob& j : jobs_) states_[j.job.seq] = {.sim = &j, .left = j.runtime};
  const absl::Time origin = jobs_.front().job.submitted;
  now_ = origin;
  absl::Time next_tick = absl::InfiniteFuture();
  size_t next_arrival = 0;
  int idle_decisions = 0;
  for (;;) {
    // The running jobs held what they hold since the clock last moved.
    history_.Advance(now_, snapshot_.running);
    bool changed = false;
    while (!events_.empty() && events_.top().at <= now_) {
      const SimEvent e = events_.top();
      events_.pop();
      SimJobState& s = states_.at(e.seq);
      if (e.epoch != s.epoch) continue;
      if (e.kind == SimEvent::kEnd) End(s);
      if (e.kind == SimEvent::kStopped) Stopped(s);
      if (e.kind == SimEvent::kResized) Resized(s);
      changed = true;
    }
    while (next_arrival < jobs_.size() && jobs_[next_arrival].job.submitted <= now_) {
      Arrive(states_.at(jobs_[next_arrival++].job.seq));
      changed = true;
    }
    const bool undecided = !snapshot_.pending.empty() || AnyCanGrow();
    if (undecided && (changed || now_ >= next_tick)) {
      Decide();
      next_tick =
          config_.cycle > absl::ZeroDuration() ? now_ + config_.cycle : absl::InfiniteFuture();
    }
    absl::Time next = absl::InfiniteFuture();
    if (!events_.empty()) next = events_.top().at;
    if (next_arrival < jobs_.size()) next = std::min(next, jobs_[next_arrival].job.submitted);
    // Only the clock is left to move: the policy had its chances.
    const bool idle = events_.empty() && next_arrival == jobs_.size();
    idle_decisions = idle ? idle_decisions + 1 : 0;
    if (undecided && idle_decisions <= 2) next = std::min(next, next_tick);
    if (next == absl::InfiniteFuture() || next - origin > config_.horizon) break;
    metrics_.Advance(now_, next);
    now_ = next;
  }
  // A finite trace must drain: whatever still waits (or never arrived before
  // the horizon) starved.
  for (const SimJob& j : jobs_) {
    const Phase phase = states_.at(j.job.seq).phase;
    if (phase == Phase::kWaiting || phase == Phase::kFuture) {
      checker_.Fail("starvation", absl::StrCat("job ", j.job.seq, " of queue ", j.job.queue,
                                               " still waits at the end (submitted ",
                                               absl::FormatTime(j.job.submitted), ")"));
    }
  }
  metrics_.Finish(now_, result_);
  result_.violations = checker_.violations();
  result_.violation_counts = checker_.counts();
  return result_;
}

}  // namespace

SimResult Simulate(const SchedulingPolicy& policy, const SimConfig& config,
                   std::vector<SimJob> jobs) {
  return Run(policy, config, std::move(jobs)).Go();
}

}  // namespace dlp::server
