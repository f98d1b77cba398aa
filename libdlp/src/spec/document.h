// Reading a spec document (parse.cc): the file's text, its one YAML document
// and the folder a relative workdir resolves against. Shared by the job and
// pipeline parsers.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "spec/diagnostics.h"
#include "yaml-cpp/yaml.h"

namespace dlp::internal {

// `path`'s text ("-": standard input), up to one byte past kMaxSpecBytes.
absl::StatusOr<std::string> ReadSpecText(const std::string& path);
// The one document of `yaml` (bounded in size); nullopt, with the problem
// reported, for a syntax error, an empty text or a second document.
std::optional<YAML::Node> LoadSpecDocument(absl::string_view yaml, const std::string& shown,
                                           Diagnostics& diagnostics);
// The spec file's folder (the working folder for stdin), absolute.
std::string BaseDir(absl::string_view filename);

}  // namespace dlp::internal
