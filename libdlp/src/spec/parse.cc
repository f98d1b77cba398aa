// ParseJobSpec / LoadJobSpec: the one adapter between yaml-cpp (which throws)
// and the Status-returning spec API.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/strings/string_view_compat.h"
#include "dlp/spec.h"
#include "dlp/sweep.h"
#include "dlp/status.h"
#include "spec/bounds.h"
#include "spec/decoder.h"
#include "spec/document.h"
#include "spec/diagnostics.h"
#include "spec/overrides.h"
#include "spec/rules.h"
#include "yaml-cpp/eventhandler.h"
#include "yaml-cpp/yaml.h"

namespace dlp {
namespace {

bool IsStdin(absl::string_view filename) { return filename.empty() || filename == "-"; }

absl::StatusOr<JobSpec> Parse(absl::string_view yaml, absl::string_view filename,
                              const SpecOptions& options) {
  internal::Diagnostics diagnostics(internal::ShownSpecName(filename));
  std::optional<YAML::Node> root =
      internal::LoadSpecDocument(yaml, options.overrides, "a job spec", diagnostics);
  if (!root) return diagnostics.ToStatus();
  internal::DecodeOptions decode{.name = options.name, .base_dir = internal::SpecBaseDir(filename)};
  JobSpec spec = internal::DecodeJobSpec(*root, decode, diagnostics);
  // The decoder applies every rule of spec/rules.h with positions, so the
  // spec is valid here; Client::Submit runs ValidateJobSpec for specs from
  // any source (the client side's one check).
  DLP_RETURN_IF_ERROR(diagnostics.ToStatus());
  return spec;
}

}  // namespace

absl::StatusOr<JobSpec> ParseJobSpec(std::string_view std_yaml, std::string_view std_filename,
                                     const SpecOptions& options) {
  const absl::string_view yaml = base::ToAbsl(std_yaml);
  const absl::string_view filename = base::ToAbsl(std_filename);
  try {
    return Parse(yaml, filename, options);
  } catch (const std::exception& e) {  // yaml-cpp throws on unexpected node shapes
    return absl::InvalidArgumentError(
        absl::StrCat(IsStdin(filename) ? "<stdin>" : filename, ": ", e.what()));
  }
}

absl::StatusOr<std::string> ReadSpecFile(const std::string& path) {
  if (IsStdin(path)) {
    // One byte past the limit is enough for the parsers to refuse it.
    std::string text(internal::kMaxSpecBytes + 1, '\0');
    std::cin.read(text.data(), static_cast<std::streamsize>(text.size()));
    if (std::cin.bad()) return absl::InvalidArgumentError("<stdin>: cannot read standard input");
    text.resize(static_cast<size_t>(std::cin.gcount()));
    return text;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": is a folder; expected a job spec file (YAML)"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read: ", std::strerror(errno)));
  }
  std::string text(internal::kMaxSpecBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read: ", std::strerror(errno)));
  }
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

absl::StatusOr<JobSpec> LoadJobSpec(const std::string& path, const SpecOptions& options) {
  DLP_ASSIGN_OR_RETURN(std::string text, ReadSpecFile(path));
  return ParseJobSpec(text, path, options);
}

}  // namespace dlp
