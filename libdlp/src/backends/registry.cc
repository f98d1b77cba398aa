// Backends by name. A backend built into this library has a factory; one that
// is known but not built yet has none and is refused with a clear message.
// To add one: declare its factory in factories.h and fill in its row.
#include <algorithm>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/factories.h"
#include "dlp/backend.h"

namespace dlp {
namespace {

using Factory = absl::StatusOr<std::unique_ptr<Backend>> (*)(const Context&);

struct BackendEntry {
  const char* name;
  Factory create;  // nullptr: known, but not built into this dlp
};

constexpr BackendEntry kBackends[] = {
    {"local", &internal::CreateLocalBackend},
    {"remote", &internal::CreateRemoteBackend},
    {"slurm", &internal::CreateSlurmBackend},
    {"kubernetes", &internal::CreateKubernetesBackend},
};

}  // namespace

absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(const Context& context) {
  for (const BackendEntry& entry : kBackends) {
    if (context.backend != entry.name) continue;
    if (entry.create == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("backend '", entry.name, "' is not built into this dlp"));
    }
    return entry.create(context);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "context '", context.name, "': unknown backend '", context.backend,
      "' (available: ", absl::StrJoin(BackendNames(), ", "), ")"));
}

std::vector<std::string> BackendNames() {
  std::vector<std::string> names;
  for (const BackendEntry& entry : kBackends) {
    if (entry.create != nullptr) names.emplace_back(entry.name);
  }
  return names;
}

}  // namespace dlp
