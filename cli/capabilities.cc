#include "capabilities.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "dlp/backend.h"
#include "dlp/backend_capabilities.h"
#include "dlp/client.h"

namespace dlp::cli {
namespace {

// "local", "local or remote", "local, remote or slurm" (`last`: "or", "and").
std::string Listed(const std::vector<std::string>& names, const std::string& last) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " " + last + " " : ", ";
    out += names[i];
  }
  return out;
}

// The backends of `info` that this dlp has.
std::vector<std::string> BuiltOffering(const CapabilityInfo& info) {
  const std::vector<std::string> built = BackendNames();
  std::vector<std::string> out;
  for (const std::string& name : info.offered_by) {
    if (std::find(built.begin(), built.end(), name) != built.end()) out.push_back(name);
  }
  return out;
}

}  // namespace

const std::vector<CapabilityInfo>& Capabilities() {
  static const std::vector<CapabilityInfo> kCapabilities = {
      {Capability::kPipelines, "pipelines", "pipelines", {"local", "remote", "slurm", "kubernetes"}},
      {Capability::kSweeps, "sweeps", "sweeps run by the backend", {"local", "remote"}},
      {Capability::kArtifacts, "artifacts", "artifacts", {"local", "remote", "slurm"}},
      {Capability::kModels, "models", "a model registry", {"local", "remote"}},
      {Capability::kScheduler, "scheduler", "scheduler explanations and queue standings",
       {"local", "remote"}},
      {Capability::kQueueAdmin, "queue-admin", "queue administration", {"local", "remote"}},
      {Capability::kTenantAdmin, "tenant-admin", "tenants and tokens", {"local", "remote"}},
      {Capability::kMonitor, "monitor", "usage samples and a web UI", {"local", "remote"}},
      {Capability::kHistory, "history", "deleting jobs", {"local", "remote"}},
      {Capability::kObjects, "objects", "rendering objects as JSON", {"kubernetes"}},
  };
  return kCapabilities;
}

const CapabilityInfo& InfoOf(Capability capability) {
  for (const CapabilityInfo& info : Capabilities()) {
    if (info.capability == capability) return info;
  }
  static const CapabilityInfo kNoneInfo = {Capability::kNone, "jobs", "jobs", {}};
  return kNoneInfo;
}

bool Offers(Backend& backend, Capability capability) {
  switch (capability) {
    case Capability::kNone: return true;
    case Capability::kPipelines: return backend.pipelines() != nullptr;
    case Capability::kSweeps: return backend.sweeps() != nullptr;
    case Capability::kArtifacts: return backend.artifacts() != nullptr;
    case Capability::kModels: return backend.models() != nullptr;
    case Capability::kScheduler: return backend.scheduler() != nullptr;
    case Capability::kQueueAdmin: return backend.queue_admin() != nullptr;
    case Capability::kTenantAdmin: return backend.tenant_admin() != nullptr;
    case Capability::kMonitor: return backend.monitor() != nullptr;
    case Capability::kHistory: return backend.history() != nullptr;
    case Capability::kObjects: return backend.objects() != nullptr;
  }
  return false;
}

std::string NeedsNote(Capability capability) {
  const std::vector<std::string> offering = BuiltOffering(InfoOf(capability));
  return absl::StrCat("Needs the ", InfoOf(capability).name, " capability (",
                      InfoOf(capability).what, "), which the ", Listed(offering, "and"),
                      " backend", offering.size() == 1 ? " offers." : "s offer.");
}

absl::Status CheckOffered(const ClientOptions& options, Capability capability,
                          std::string_view command) {
  if (capability == Capability::kNone) return absl::OkStatus();
  absl::StatusOr<Context> context = ResolveContext(options);
  if (!context.ok()) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<Backend>> backend = CreateBackend(*context);
  if (!backend.ok() || Offers(**backend, capability)) return absl::OkStatus();
  const CapabilityInfo& info = InfoOf(capability);
  std::string message =
      absl::StrCat("the ", (*backend)->Name(), " backend does not offer ", info.what, " (`dlp ",
                   std::string(command), "` needs the ", info.name, " capability)");
  if (const std::vector<std::string> others = BuiltOffering(info); !others.empty()) {
    absl::StrAppend(&message, "; use the ", Listed(others, "or"), " backend");
  }
  return absl::UnimplementedError(message);
}

}  // namespace dlp::cli
