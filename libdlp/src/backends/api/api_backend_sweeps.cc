// The sweep calls of the dlpd API backend: /v1/sweeps (docs/api.md, "Sweeps").
#include "absl/strings/str_cat.h"
#include "backends/api/api_backend.h"
#include "dlp/status.h"
#include "dlp/sweep.h"

namespace dlp::internal {

absl::StatusOr<Sweep> ApiBackend::SubmitSweep(const SweepSpec& spec) {
  DLP_ASSIGN_OR_RETURN(std::string reply, PostBody("/v1/sweeps", SweepSpecToJson(spec)));
  return SweepFromJson(reply);
}

absl::StatusOr<Sweep> ApiBackend::GetSweep(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(std::string reply, GetBody(absl::StrCat("/v1/sweeps/", UrlEncode(id))));
  return SweepFromJson(reply);
}

absl::StatusOr<std::vector<Sweep>> ApiBackend::ListSweeps() {
  DLP_ASSIGN_OR_RETURN(std::string reply, GetBody("/v1/sweeps"));
  return SweepsFromJson(reply);
}

absl::StatusOr<Sweep> ApiBackend::CancelSweep(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(std::string reply,
                       PostBody(absl::StrCat("/v1/sweeps/", UrlEncode(id), "/cancel"), "{}"));
  return SweepFromJson(reply);
}

absl::StatusOr<Sweep> ApiBackend::DeleteSweep(std::string_view id, bool force) {
  DLP_ASSIGN_OR_RETURN(std::string reply,
                       ForcedDeleteBody(absl::StrCat("/v1/sweeps/", UrlEncode(id)), force));
  return SweepFromJson(reply);
}

}  // namespace dlp::internal
