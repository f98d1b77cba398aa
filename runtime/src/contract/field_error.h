// The error the contract's readers return for a bad field: "SOURCE: FIELD: WHAT",
// so that a message names the file and the field.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace dlp::contract {

inline absl::Status FieldError(const std::string& source, const std::string& field,
                               const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(source, ": ", field, ": ", what));
}

}  // namespace dlp::contract
