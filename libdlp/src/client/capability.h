// How the client asks its backend for a capability (dlp/backend_capabilities.h).
#pragma once

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "dlp/backend.h"
#include "dlp/backend_capabilities.h"

namespace dlp::internal {

// `capability` (what one of backend's accessors returned), or Unimplemented
// naming the backend and what it lacks: "the slurm backend does not support
// tenants and tokens (a dlpd has them)".
template <typename Capability>
absl::StatusOr<Capability*> Offered(const Backend& backend, Capability* capability) {
  if (capability != nullptr) return capability;
  return absl::UnimplementedError(
      absl::StrCat("the ", backend.Name(), " backend does not support ", Capability::kFeature));
}

}  // namespace dlp::internal
