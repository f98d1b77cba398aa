#include "run_state.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "checkpoint/resume.h"

namespace dlp::fmnist {
namespace {

// What rank 0 broadcasts before the model: whether it failed, then where the
// run stands (every field 8 bytes, so it travels as int64s).
struct StartHeader {
  int64_t failed = 0;
  Position at;
};
static_assert(sizeof(StartHeader) == 7 * sizeof(int64_t));

}  // namespace

absl::StatusOr<StartState> Start(const TrainOptions& o, const Network& net, Ranks& ranks,
                                 const TrainObserver& observer) {
  const size_t count = net.parameter_count();
  StartState start;
  start.params_and_velocity.assign(2 * count, 0.0f);
  absl::Status rank0_status;
  StartHeader header;
  if (ranks.rank() == 0) {
    Position& at = header.at;
    at.rng_state = o.seed;
    absl::StatusOr<Checkpoint> loaded = absl::NotFoundError("");
    const std::string path = CheckpointPath(o.checkpoint_dir);
    if (!o.checkpoint_dir.empty()) loaded = LoadCheckpoint(o.checkpoint_dir);
    if (loaded.ok()) {
      absl::Status usable =
          CheckResumable(*loaded, path, net.model(), net.parameter_count(), o.batch);
      if (!usable.ok()) loaded = usable;
    }
    if (loaded.ok()) {
      std::copy(loaded->params.begin(), loaded->params.end(), start.params_and_velocity.begin());
      std::copy(loaded->velocity.begin(), loaded->velocity.end(),
                start.params_and_velocity.begin() + count);
      at = loaded->at;
      if (observer.on_note) observer.on_note(ResumeNote(path, at, ranks.size()));
    } else if (absl::IsNotFound(loaded.status())) {
      const std::vector<float> init = net.InitialParameters(o.seed);
      std::copy(init.begin(), init.end(), start.params_and_velocity.begin());
    } else {
      rank0_status = loaded.status();
      header.failed = 1;
    }
  }
  DLP_RETURN_IF_ERROR(ranks.Broadcast(reinterpret_cast<int64_t*>(&header), 7));
  if (header.failed != 0) {
    if (ranks.rank() == 0) return rank0_status;
    return absl::AbortedError("rank 0 could not load its checkpoint");
  }
  DLP_RETURN_IF_ERROR(ranks.Broadcast(start.params_and_velocity.data(), 2 * count));
  start.at = header.at;
  start.at.batch = o.batch;
  return start;
}

absl::Status StopAt(const TrainOptions& o, const Position& at, Ranks& ranks,
                    const TrainObserver& observer,
                    const std::function<absl::Status(const Position&)>& save) {
  absl::Status saved;
  int64_t failed = 0;
  if (ranks.rank() == 0 && !o.checkpoint_dir.empty()) {
    saved = save(at);
    failed = saved.ok() ? 0 : 1;
  }
  DLP_RETURN_IF_ERROR(ranks.Broadcast(&failed, 1));
  if (!saved.ok()) return saved;
  if (failed != 0) return absl::AbortedError("rank 0 could not write its checkpoint");
  const std::string where = absl::StrCat("step ", at.step, ", ", at.epoch_samples,
                                         " samples into epoch ", at.epoch + 1);
  if (ranks.rank() == 0 && observer.on_note) {
    observer.on_note(o.checkpoint_dir.empty()
                         ? absl::StrCat("asked to stop (SIGUSR1) at ", where,
                                        "; no --checkpoint folder, so nothing was saved")
                         : absl::StrCat("asked to stop (SIGUSR1): wrote ",
                                        CheckpointPath(o.checkpoint_dir), " at ", where));
  }
  return absl::CancelledError(absl::StrCat("stopped on request at ", where));
}

}  // namespace dlp::fmnist
