// What a job keeps (its output folder, DLP_OUTPUT_DIR) and the model registry
// built on it: the types the Backend and Client functions of those names pass.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace dlp {

// One regular file under a job's output folder. Symbolic links and other
// non-regular files are never listed nor served.
struct Artifact {
  std::string path;    // relative to the output folder: "model.ckpt", "epochs/1.json"
  int64_t size = 0;    // bytes
  std::string sha256;  // 64 lowercase hex digits
  absl::Time mtime;
};

// One version of a registered model: the file, content-addressed, and where it
// came from.
struct ModelVersion {
  std::string name;  // "fmnist"; "TENANT/fmnist" when the owner sees a tenant's
  int version = 0;   // 1, 2, ...
  std::string file;  // the file's name when fetched ("model.ckpt")
  int64_t size = 0;
  std::string sha256;
  std::vector<std::string> aliases;           // "staging", "production"
  std::string job;                            // the job id it was registered from
  std::string job_spec;                       // the job's spec as JSON
  std::map<std::string, double> metrics;      // each metric's last value
  std::map<std::string, std::string> labels;  // the job's labels (a sweep's trial, parameters)
  std::string git_commit;                     // the workdir's HEAD; empty: not a repository
  std::string registered_by;                  // the tenant; "" for the owner
  absl::Time created;

  // "fmnist:3".
  std::string Ref() const;
};

// Where a model version to register comes from.
struct ModelRegistration {
  std::string name;
  std::string job;    // job id
  std::string path;   // a file under the job's output folder
  std::string alias;  // optional: set on the new version
};

// The JSON form (dlpd's API and `-o json`, docs/api.md).
// {"artifacts":[{"path","size","sha256","mtime"}]}
std::string ArtifactsToJson(const std::vector<Artifact>& artifacts, int indent = -1);
absl::StatusOr<std::vector<Artifact>> ArtifactsFromJson(std::string_view json);
// {"name","version","file","size","sha256","aliases","job","jobSpec","metrics","labels",
//  "gitCommit","registeredBy","created"}
std::string ModelVersionToJson(const ModelVersion& model, int indent = -1);
absl::StatusOr<ModelVersion> ModelVersionFromJson(std::string_view json);
std::string ModelVersionsToJson(const std::vector<ModelVersion>& models,
                                int indent = -1);  // {"models":[...]}
absl::StatusOr<std::vector<ModelVersion>> ModelVersionsFromJson(std::string_view json);

}  // namespace dlp
