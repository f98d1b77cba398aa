// The backend capabilities (dlp/backend_capabilities.h) as the CLI names them:
// what the command table says a verb needs, and the one message a command
// gives, before doing anything, where the context's backend lacks it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace dlp {
class Backend;
struct ClientOptions;
}  // namespace dlp

namespace dlp::cli {

// One per accessor of dlp::Backend; kNone: what every backend does (jobs).
enum class Capability {
  kNone,
  kPipelines,
  kSweeps,
  kArtifacts,
  kModels,
  kScheduler,
  kQueueAdmin,
  kTenantAdmin,
  kMonitor,
  kHistory,
  kObjects,
};

struct CapabilityInfo {
  Capability capability;
  const char* name;  // "tenant-admin", as help and messages name it
  const char* what;  // "tenants and tokens": "the slurm backend does not offer ..."
  // The backends that offer it (capabilities_test holds this to the backends).
  std::vector<std::string> offered_by;
};

// Every capability but kNone, in enum order.
const std::vector<CapabilityInfo>& Capabilities();
const CapabilityInfo& InfoOf(Capability capability);

// Whether `backend`'s accessor for `capability` returns the interface.
bool Offers(Backend& backend, Capability capability);

// "Needs the tenant-admin capability (tenants and tokens), which the local
// and remote backends offer." for --help.
std::string NeedsNote(Capability capability);

// Unimplemented, naming the backend, what it lacks, `command` and the
// backends that offer it, where the context `options` pick has a backend that
// lacks `capability`; OK otherwise, and also where the context does not
// resolve or its backend cannot be made (the command itself then says why).
// Connects to nothing.
absl::Status CheckOffered(const ClientOptions& options, Capability capability,
                          std::string_view command);

}  // namespace dlp::cli
