// Reading a folder's trace files (dlp-run's --log-dir, dlpd's job folders,
// Slurm output folders).
#include <algorithm>
#include <filesystem>
#include <regex>

#include "absl/strings/str_cat.h"
#include "contract/files.h"
#include "dlp/profile.h"

namespace dlp {

bool IsTraceFileName(const std::string& name) {
  static const std::regex kName(R"(rank-\d+(\.restart-\d+)?\.trace\.json)");
  return std::regex_match(name, kName);
}

absl::StatusOr<std::vector<TraceFile>> ReadTraceDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return absl::NotFoundError(absl::StrCat("cannot read ", dir, ": ", ec.message()));
  std::vector<TraceFile> files;
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (!IsTraceFileName(name)) continue;
    // The folder may belong to a job's user and dlpd may read it as root:
    // never follow a link put there.
    absl::StatusOr<std::string> content = contract::ReadFileNoFollow(dir, name);
    if (content.ok()) files.push_back({name, std::move(*content)});
  }
  std::sort(files.begin(), files.end(),
            [](const TraceFile& a, const TraceFile& b) { return a.name < b.name; });
  return files;
}

}  // namespace dlp
