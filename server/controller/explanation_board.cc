#include "server/controller/explanation_board.h"

namespace dlp::server {

void ExplanationBoard::Put(const std::vector<QueuedExplanation>& changed) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const QueuedExplanation& e : changed) by_seq_[e.seq] = e;
}

void ExplanationBoard::Forget(int64_t seq) {
  std::lock_guard<std::mutex> lock(mu_);
  by_seq_.erase(seq);
}

void ExplanationBoard::OverlayLocked(JobRecord& record) const {
  if (record.job.state != JobState::kQueued) return;
  auto it = by_seq_.find(record.seq);
  if (it == by_seq_.end()) return;
  record.job.reason = it->second.reason;
  record.job.position = it->second.position;
  record.job.estimated_start = it->second.estimated_start;
}

void ExplanationBoard::Overlay(JobRecord& record) const {
  std::lock_guard<std::mutex> lock(mu_);
  OverlayLocked(record);
}

void ExplanationBoard::Overlay(std::vector<JobRecord>& records) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (JobRecord& r : records) OverlayLocked(r);
}

}  // namespace dlp::server
