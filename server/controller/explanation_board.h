// Every Queued job's current reason, position and estimated start, readable
// without the controller's lock. Behind a backlog every start moves the
// position of every job behind it, and writing thousands of rows to the store
// each second was 5 % of dlpd's CPU: the store now gets them when few change
// (and now and then), and what the API reads from the store is overlaid with
// this board.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "server/store/job_store.h"

namespace dlp::server {

class ExplanationBoard {
 public:
  void Put(const std::vector<QueuedExplanation>& changed);
  // The job left the queue (started, ended): its store row says why.
  void Forget(int64_t seq);
  // A Queued record gets the board's explanation, when it has one.
  void Overlay(JobRecord& record) const;
  // The same for a whole list, under one lock.
  void Overlay(std::vector<JobRecord>& records) const;

 private:
  void OverlayLocked(JobRecord& record) const;  // mu_ held

  mutable std::mutex mu_;
  absl::flat_hash_map<int64_t, QueuedExplanation> by_seq_;
};

}  // namespace dlp::server
