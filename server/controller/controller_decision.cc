// Applying the policy's Decision beyond starts: preemptions and the
// explanations of the jobs left waiting.
#include <set>

#include "absl/strings/str_cat.h"
#include "dlp/status.h"
#include "server/controller/controller.h"
#include "server/support/log.h"

namespace dlp::server {

std::set<int64_t> Controller::Preempt(const std::vector<PreemptDecision>& preempt) {
  std::set<int64_t> victims;
  std::vector<JobChange> changes;
  for (const PreemptDecision& p : preempt) {
    victims.insert(p.victim);
    auto it = active_.find(p.victim);
    if (it == active_.end() || it->second.job.state != JobState::kRunning ||
        it->second.stop_requested_us) {
      continue;  // ended, or already stopping
    }
    if (!it->second.job.spec.preemptible) {
      Log(absl::StrCat("the policy preempted job ", p.victim,
                       ", which is not preemptible; ignored"));
      continue;
    }
    JobRecord record = it->second;
    std::vector<Event> events;
    const std::string reason =
        p.reason.empty() ? absl::StrCat("Preempted by job ", p.preemptor) : p.reason;
    executor_.RequestStop(record, JobState::kQueued, reason, events);
    Log(absl::StrCat("job ", record.job.id, ": ", reason));
    changes.push_back({std::move(record), std::move(events)});
  }
  if (changes.empty()) return victims;
  absl::Status status = Commit(std::move(changes));
  if (!status.ok()) {
    Log(absl::StrCat("not preempting: ", status.message()));  // decided again next round
    return victims;
  }
  poll_now_ = true;  // the next round signals them
  work_ = true;
  return victims;
}

void Controller::SaveExplanations(std::map<int64_t, PendingExplanation> waiting) {
  std::vector<QueuedExplanation> changed;
  for (const auto& [seq, why] : waiting) {
    auto it = active_.find(seq);  // a cancel may have ended it while mu_ was released
    if (it == active_.end() || it->second.job.state != JobState::kQueued) continue;
    QueuedExplanation e{seq, why.reason, std::nullopt, std::nullopt};
    if (why.position > 0) e.position = why.position;
    // Whole seconds: an estimate that moves by microseconds is not a change.
    if (why.estimated_start) {
      e.estimated_start = absl::FromUnixSeconds(absl::ToUnixSeconds(*why.estimated_start));
    }
    Job& job = it->second.job;
    if (job.reason != e.reason || job.position != e.position ||
        job.estimated_start != e.estimated_start) {
      job.reason = e.reason;
      job.position = e.position;
      job.estimated_start = e.estimated_start;
      changed.push_back(e);
      unsaved_explanations_[seq] = std::move(e);
    }
  }
  explained_ = std::move(waiting);
  board_.Put(changed);
  // Watchers read the board at once; behind a backlog (every job's position
  // moves each round) they are woken at most once a second.
  const absl::Time now = absl::Now();
  if (!changed.empty() && (changed.size() <= kExplanationsAtOnce ||
                           now - explanations_announced_ >= absl::Seconds(1))) {
    explanations_announced_ = now;
    ++generation_;
    changed_.notify_all();
  }
  WriteExplanations(/*force=*/false);
}

void Controller::WriteExplanations(bool force) {
  // A few hundred rows are written at once (the store matches the board on
  // a small cluster); more wait, keeping only the latest, as readers see
  // the board.
  if (unsaved_explanations_.empty()) return;
  const absl::Time now = absl::Now();
  if (!force && unsaved_explanations_.size() > kExplanationsAtOnce &&
      now - explanations_written_ < absl::Seconds(30)) {
    return;
  }
  std::vector<QueuedExplanation> changed;
  for (auto& [seq, e] : unsaved_explanations_) {
    auto it = active_.find(seq);  // started or ended since: its record says why
    if (it != active_.end() && it->second.job.state == JobState::kQueued) {
      changed.push_back(std::move(e));
    }
  }
  unsaved_explanations_.clear();
  explanations_written_ = now;
  if (changed.empty()) return;
  if (absl::Status status = store_.UpdateExplanations(changed); !status.ok()) {
    Log(absl::StrCat("cannot save queue reasons: ", status.message()));
    for (QueuedExplanation& e : changed) {  // tried again; a newer one wins
      unsaved_explanations_.try_emplace(e.seq, std::move(e));
    }
    return;
  }
}

absl::StatusOr<JobExplanation> Controller::Why(const std::string& id, const std::string& tenant) {
  DLP_ASSIGN_OR_RETURN(JobRecord record, Read(id, tenant));
  JobExplanation why;
  why.id = record.job.id;
  why.state = record.job.state;
  why.reason = record.job.reason;
  if (record.job.size > 0) {  // an elastic job: its resizes
    why.trace.push_back(absl::StrCat("elastic: runs ", record.job.size, " workers; re-formed ",
                                     record.job.resizes, " times at another size"));
    if (!record.resize_reason.empty()) {
      why.trace.push_back(absl::StrCat(record.resize_to > 0 ? "resizing: " : "last resize: ",
                                       record.resize_reason));
    }
  }
  if (record.job.state != JobState::kQueued || record.reforming) return why;
  why.position = record.job.position;
  why.estimated_start = record.job.estimated_start;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = explained_.find(record.seq);
  if (it != explained_.end()) why.trace = it->second.trace.lines();
  return why;
}

}  // namespace dlp::server
