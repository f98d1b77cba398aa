// Applying the policy's resizes of elastic jobs: the stop of every rank is
// committed first (Executor::RequestResize), the next poll signals them, and
// once they are gone the job, Queued with `reforming` set, is started again
// at once at its new size on the resources it kept.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "server/controller/controller.h"
#include "server/support/log.h"

namespace dlp::server {

void Controller::Resize(const std::vector<ResizeDecision>& resize) {
  std::vector<JobChange> changes;
  for (const ResizeDecision& r : resize) {
    auto it = active_.find(r.seq);
    if (it == active_.end() || it->second.job.state != JobState::kRunning ||
        it->second.stop_requested_us || it->second.job.size <= 0) {
      continue;  // ended, stopping, or not elastic
    }
    JobRecord record = it->second;
    record.resize_to = r.to;
    record.resize_placement = r.placement;
    record.resize_reason = r.reason;
    std::vector<Event> events;
    executor_.RequestResize(record, events);
    Log(absl::StrCat("job ", record.job.id, ": ", r.reason));
    changes.push_back({std::move(record), std::move(events)});
  }
  if (changes.empty()) return;
  if (absl::Status status = Commit(std::move(changes)); !status.ok()) {
    Log(absl::StrCat("not resizing: ", status.message()));  // decided again next round
    return;
  }
  poll_now_ = true;  // the next round signals them
  work_ = true;
}

void Controller::RestartReforming() {
  reforming_seen_ = false;
  for (const auto& [job_seq, record] : active_) {
    if (record.job.state != JobState::kQueued || !record.reforming) continue;
    const auto seq = job_seq;  // a lambda may not capture a structured binding before C++20
    const bool decided = std::any_of(decided_starts_.begin(), decided_starts_.end(),
                                     [&](const StartDecision& s) { return s.seq == seq; });
    if (decided) continue;
    decided_starts_.push_front({seq, record.placement, record.job.size});
    work_ = true;
  }
}

void Controller::NoteReformed(JobRecord& record, std::vector<Event>& events) {
  if (!record.reforming) return;
  const absl::Time now = absl::Now();
  record.reforming = false;
  record.resized = now;
  events.push_back({now, "Resized", record.resize_reason});  // kept: `status --why` shows it
}

}  // namespace dlp::server
