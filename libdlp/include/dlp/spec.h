// Parsing and validating job specs (the YAML format of dlp-job(5)).
// Errors are absl::InvalidArgumentError with "FILE:LINE:COLUMN: FIELD.PATH: what
// was expected" and, for unknown fields, a "did you mean" suggestion.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "dlp/job.h"

namespace dlp {

struct SpecOptions {
  // "spec.replicas.worker.count=8": applied to the YAML document before validation.
  std::vector<std::string> overrides;
  std::string name;  // non-empty: replaces metadata.name
};

// `filename` is used in messages and to resolve a relative workdir ("-" = stdin, cwd).
absl::StatusOr<JobSpec> ParseJobSpec(std::string_view yaml, std::string_view filename,
                                     const SpecOptions& options = {});

// Reads `path` ("-" reads standard input) and parses it.
absl::StatusOr<JobSpec> LoadJobSpec(const std::string& path, const SpecOptions& options = {});

// The text of a spec file ("-": standard input), for a caller that looks at
// its kind first (SpecKind in dlp/pipeline.h). InvalidArgument when it cannot
// be read; a text past the size limit is refused by the parsers.
absl::StatusOr<std::string> ReadSpecFile(const std::string& path);

// The rules of dlp-job(5) on a spec built in code. ParseJobSpec applies the
// same rules while decoding (with positions), and Client::Submit and
// Client::Render run this on whatever they are given; backends rely on it.
// InvalidArgument listing every problem as "FIELD.PATH: what is wrong".
absl::Status ValidateJobSpec(const JobSpec& spec);

// Quantities as Kubernetes writes them.
absl::StatusOr<int64_t> ParseCpuMillis(std::string_view text);    // "2", "0.5", "500m"
absl::StatusOr<int64_t> ParseMemoryBytes(std::string_view text);  // "512Mi", "4Gi", "1G", "1000"
std::string FormatCpuMillis(int64_t millis);                       // 500 -> "500m", 2000 -> "2"
// GPUs: "1", "0.5", "0.25" (thousandths at most); the range and the rule that
// a fraction is below one device are dlp-job(5)'s, checked by ValidateJobSpec.
absl::StatusOr<int64_t> ParseGpuMillis(std::string_view text);
std::string FormatGpuMillis(int64_t millis);                       // 500 -> "0.5", 2000 -> "2"
std::string FormatMemoryBytes(int64_t bytes);                      // 4294967296 -> "4Gi"

}  // namespace dlp
