#include "checkpoint/resume.h"

#include "absl/strings/str_cat.h"

namespace dlp::fmnist {

absl::Status CheckResumable(const Checkpoint& c, const std::string& path, const std::string& model,
                            size_t parameters, int64_t batch) {
  if (c.model != model || c.params.size() != parameters) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, " holds a ", c.model, " model with ", c.params.size(),
        " parameters; this run trains ", model, " (", parameters,
        "): use another --checkpoint folder"));
  }
  if (c.at.batch != 0 && c.at.batch != batch) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, " was trained with a global batch of ", c.at.batch, "; this run asks for --batch ",
        batch, ": give --batch ", c.at.batch, " (the per-rank batch follows from the ranks) "
        "or use another --checkpoint folder"));
  }
  return absl::OkStatus();
}

std::string ResumeNote(const std::string& path, const Position& at, int ranks) {
  if (at.epoch_samples == 0) return absl::StrCat("resuming from ", path, " after epoch ", at.epoch);
  return absl::StrCat("resuming from ", path, " at step ", at.step, ", ", at.epoch_samples,
                      " samples into epoch ", at.epoch + 1, ", with ", ranks,
                      " rank(s) and the global batch of ", at.batch);
}

}  // namespace dlp::fmnist
