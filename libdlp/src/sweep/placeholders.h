// `${params.NAME}` and `${resource}` in a sweep template's command and env:
// the one place that finds and substitutes them. Any other `${...}` is left
// as it is (a shell in the command may expand its own variables).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "dlp/sweep.h"
#include "spec/rules.h"

namespace dlp::internal {

// What is wrong with the placeholders of `text` for this sweep (an unknown
// parameter, `${resource}` outside asha), or nothing.
Problem CheckPlaceholders(absl::string_view text, const SweepSpec& sweep);

// `text` with the trial's values in place; `resource` < 0 leaves
// `${resource}` as it is.
std::string Substitute(absl::string_view text, const TrialParams& params, int64_t resource);

}  // namespace dlp::internal
