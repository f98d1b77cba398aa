// The controller's loop: commit what changed, poll runners, start what fits.
// A start is committed (Starting) before dlp-run is spawned; see executor.h.
#include <signal.h>

#include <cstdlib>
#include <iterator>
#include <set>

#include "absl/strings/str_cat.h"
#include "server/controller/controller.h"
#include "server/controller/crash_point.h"
#include "server/controller/snapshot_builder.h"
#include "server/scheduler/elastic.h"
#include "server/support/log.h"
#include "server/support/thread_guard.h"

namespace dlp::server {
namespace {

// Spawns per round: enough for a hundred starts a second in rounds of tens
// of ms, while ended runners are reaped between rounds.
constexpr size_t kMaxStartsPerRound = 16;
// The longest pause between decisions (see Schedule).
constexpr absl::Duration kMaxDecisionPause = absl::Milliseconds(100);

}  // namespace

absl::Status Controller::Commit(std::vector<JobChange> changes) {
  if (changes.empty()) return absl::OkStatus();
  for (JobChange& c : changes) {
    auto pending = unsaved_.find(c.record.seq);
    if (pending != unsaved_.end()) {
      c.events.insert(c.events.begin(), pending->second.begin(), pending->second.end());
    }
  }
  absl::Status status = store_.UpdateAll(changes);
  if (!status.ok()) {
    return absl::UnavailableError(
        absl::StrCat("the job store refused the change: ", status.message()));
  }
  for (JobChange& c : changes) {
    unsaved_.erase(c.record.seq);
    if (c.record.job.state != JobState::kQueued) board_.Forget(c.record.seq);
    if (IsTerminal(c.record.job.state)) {
      executor_.Release(c.record);
      active_.erase(c.record.seq);
    } else {
      active_[c.record.seq] = std::move(c.record);
    }
  }
  ++generation_;
  changed_.notify_all();
  return absl::OkStatus();
}

void Controller::Record(std::vector<JobChange> changes) {
  if (changes.empty()) return;
  absl::Status status = Commit(changes);
  if (status.ok()) return;
  Log(absl::StrCat(status.message(), " (", changes.size(),
                   " job(s) kept in memory, saved again every round)"));
  for (JobChange& c : changes) {
    std::vector<Event>& pending = unsaved_[c.record.seq];
    pending.insert(pending.end(), c.events.begin(), c.events.end());
    active_[c.record.seq] = std::move(c.record);
  }
}

void Controller::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    work_ = false;
    RunGuarded("controller loop: round", [&] { Tick(lock); });
    absl::Duration wait = options_.poll_interval;
    const absl::Time now = absl::Now();
    if (decided_starts_.empty() && next_decision_ > now) {
      wait = std::min(wait, next_decision_ - now);
    }
    wake_.wait_for(lock, absl::ToChronoMicroseconds(wait), [this] { return stopping_ || work_; });
  }
}

void Controller::Tick(std::unique_lock<std::mutex>& lock) {
  // A wake (every submit) schedules; runners are polled on their own clock,
  // or a busy API would make the loop re-read every status file per request.
  const absl::Time now = absl::Now();
  WriteExplanations(/*force=*/false);
  if (!poll_now_ && now < next_poll_) return Schedule(lock);
  poll_now_ = false;
  next_poll_ = now + options_.poll_interval;
  if (!unsaved_.empty()) {
    std::vector<JobChange> retry;
    for (const auto& [seq, events] : unsaved_) retry.push_back({active_[seq], {}});
    if (Commit(std::move(retry)).ok()) Log("the job store takes writes again");
  }
  std::vector<JobChange> changes;
  for (const auto& [seq, active] : active_) {
    if (active.job.state != JobState::kRunning) continue;
    JobRecord record = active;
    std::vector<Event> events;
    if (!executor_.Poll(record, events)) continue;
    if (IsTerminal(record.job.state)) {
      Log(absl::StrCat("job ", record.job.id, ": ", std::string(JobStateName(record.job.state)),
                       record.job.reason.empty() ? "" : ": ", record.job.reason));
    } else if (record.reforming) {  // resized, its processes gone: started again at once
      Log(absl::StrCat("job ", record.job.id, ": ", record.job.reason));
      reforming_seen_ = true;
    } else if (record.job.state == JobState::kQueued) {  // preempted, its processes gone
      Log(absl::StrCat("job ", record.job.id, ": back in the queue: ", record.job.reason));
      requeued_.insert(seq);
    }
    changes.push_back({std::move(record), std::move(events)});
  }
  Record(std::move(changes));  // one commit for the whole round
  executor_.Tidy();
  Schedule(lock);
}

void Controller::KeepHistory(Snapshot& snapshot, bool save_now) {
  if (!history_.enabled()) return;
  // The jobs running now ran since the last round (100 ms at most apart).
  history_.Advance(snapshot.now, snapshot.running);
  history_.Fill(snapshot);
  if (!save_now && snapshot.now - history_saved_ < absl::Minutes(1)) return;
  history_saved_ = snapshot.now;
  if (absl::Status saved = store_.SaveQueueHistory(history_.at(), history_.Rows()); !saved.ok()) {
    Log(absl::StrCat("fair-share history not saved, kept in memory: ", saved.message()));
  }
}

void Controller::Schedule(std::unique_lock<std::mutex>& lock) {
  // Runners are spawned with mu_ released and recorded Running only after
  // their batch: one long batch would hold back the reaping of jobs that
  // already ended. A decision's starts are spawned kMaxStartsPerRound at a
  // time, in rounds that run at once, one after the other, and the policy
  // decides again once they are all spawned. What ends meanwhile only frees
  // resources, so the rest of a decision still fits; a job cancelled
  // meanwhile is skipped.
  Decision decision;
  const absl::Time round_start = absl::Now();
  const bool decide = decided_starts_.empty();
  // Behind a backlog of thousands a decision takes tens of ms, and runners
  // end (each one a wake) hundreds of times a second: deciding at every wake
  // would leave little time for starting. The loop comes back when it is due.
  if (reforming_seen_) RestartReforming();
  if (decide && round_start < next_decision_ && decided_starts_.empty()) return;
  std::map<int64_t, PendingExplanation> held;  // waiting for their dependencies
  if (decide) {
    held = HoldDependents();
    Snapshot snapshot = BuildSnapshot(active_, options_.capacity, absl::Now());
    KeepHistory(snapshot);
    snapshot.devices = options_.devices;
    snapshot.queues = ConfiguredQueues();  // the store's catalog: no SQLite read
    snapshot.resize_interval = options_.resize_interval;
    snapshot.preempt_exempt_time = options_.preempt_exempt_time;
    // A job preempted this round waits for the next (no preemption loop).
    std::erase_if(snapshot.pending, [&](const PendingJob& job) {
      return requeued_.contains(job.seq) || held.contains(job.seq);
    });
    if (!requeued_.empty()) work_ = true;
    requeued_.clear();
    // With nothing waiting the policy still grows elastic jobs into free room.
    if (snapshot.pending.empty() && !MayGrow(snapshot)) {
      SaveExplanations(std::move(held));
      return;
    }
    decision = policy_->Schedule(snapshot);
    decision.waiting.merge(held);
    const std::set<int64_t> victims = Preempt(decision.preempt);
    Resize(decision.resize);
    for (StartDecision& start : decision.start) {
      if (victims.contains(start.seq)) {
        Log(absl::StrCat("the policy started job ", start.seq, ", which it preempts; ignored"));
        continue;
      }
      decided_starts_.push_back(std::move(start));
    }
  }
  const absl::Time decided = absl::Now();
  std::vector<StartDecision> starts;
  while (!decided_starts_.empty() && starts.size() < kMaxStartsPerRound) {
    auto job = active_.find(decided_starts_.front().seq);
    if (job != active_.end() && job->second.job.state == JobState::kQueued) {
      starts.push_back(std::move(decided_starts_.front()));
    }
    decided_starts_.pop_front();
  }
  if (!decided_starts_.empty()) work_ = true;
  // First the Starting records, in one commit; nothing is spawned unless it
  // is durable (a crash from here on is resolved by Executor::Reconcile).
  std::vector<JobChange> starting;
  for (const StartDecision& start : starts) {
    JobRecord record = active_[start.seq];
    record.job.position.reset();
    record.job.estimated_start.reset();
    record.placement = start.placement;
    if (!record.reforming && start.size > 0) {  // an elastic job's first size
      record.job.size = start.size;
      record.resized = absl::Now();
    }
    ++record.start_attempt;
    starting.push_back({std::move(record), {}});
  }
  absl::Status recorded = Commit(starting);
  if (!recorded.ok()) {
    Log(absl::StrCat("not starting ", starting.size(), " job(s): ", recorded.message()));
  } else if (!starting.empty()) {
    CrashPointForTests("after-starting");
    // Group files and spawns take time (fsyncs, exec): API calls go on
    // meanwhile, and a cancel of one of these jobs waits for the round.
    for (const JobChange& c : starting) starting_.insert(c.record.seq);
    lock.unlock();
    std::vector<JobChange> started;
    for (JobChange& c : starting) {
      JobRecord& record = c.record;
      std::vector<Event> events;
      // Nothing may escape while mu_ is released (an exception here is a bug).
      absl::Status status = absl::InternalError("unexpected exception, see dlpd's log");
      RunGuarded(absl::StrCat("job ", record.job.id, ": start"), [&] {
        absl::StatusOr<std::optional<UnixAccount>> run_as = RunAs(record.job.tenant);
        status = run_as.ok() ? executor_.Start(record, *run_as, events) : run_as.status();
      });
      if (status.ok()) NoteReformed(record, events);
      if (!status.ok()) {
        record.job.state = JobState::kFailed;
        record.job.reason = absl::StrCat("cannot start: ", status.message());
        record.job.finished = absl::Now();
        for (JobReplica& r : record.job.replicas) r.state = JobState::kFailed;
        events.push_back({*record.job.finished, "Failed", record.job.reason});
      }
      Log(absl::StrCat("job ", record.job.id, ": ", status.ok() ? "started" : record.job.reason));
      started.push_back({std::move(record), std::move(events)});
    }
    lock.lock();
    starting_.clear();
    changed_.notify_all();
    CrashPointForTests("after-spawn");
    Record(std::move(started));
  }
  if (decide) {
    const absl::Time explaining = absl::Now();
    SaveExplanations(std::move(decision.waiting));
    // Deciding takes at most a quarter of the loop's time (spawns are not
    // counted): the next decision waits three times this one's length.
    const absl::Time now = absl::Now();
    next_decision_ =
        now + std::min(kMaxDecisionPause, 3 * ((decided - round_start) + (now - explaining)));
  }
}

}  // namespace dlp::server
