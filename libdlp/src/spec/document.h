// Reading the one YAML document of a spec file (any kind: Job, Sweep) with the
// checks they all share; see document.cc.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "spec/diagnostics.h"
#include "yaml-cpp/yaml.h"

namespace dlp::internal {

// "<stdin>" for "-" or "", else the name as given: how messages name the file.
std::string ShownSpecName(absl::string_view filename);
// The folder a relative workdir resolves against: the file's, or the cwd for stdin.
std::string SpecBaseDir(absl::string_view filename);
// The document with `overrides` applied and its bounds checked; nullopt when
// `diagnostics` holds why not. `what` names the expected document ("a job spec").
// yaml-cpp's exceptions from the syntax are caught here.
std::optional<YAML::Node> LoadSpecDocument(absl::string_view yaml,
                                           const std::vector<std::string>& overrides,
                                           absl::string_view what, Diagnostics& diagnostics);

}  // namespace dlp::internal
