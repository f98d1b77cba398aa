// Registered model versions and their aliases in dlpd's SQLite file (tables
// `models` and `model_aliases`, migrations.cc), keyed by tenant (kOwnerTenant
// for the owner) and name. The files themselves are blobs (BlobStore); a row
// names its blob by SHA-256. Thread-safe: every method may be called from any
// thread.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "dlp/artifacts.h"
#include "server/store/sqlite.h"

namespace dlp::server {

// OK for 1-63 of [A-Za-z0-9._-] not starting with '.' or '-' (a model name
// or an alias); `what` names it in the error.
absl::Status ValidateModelName(absl::string_view name, absl::string_view what = "model name");

// "NAME" (the latest version), "NAME:3" or "NAME@staging".
struct ModelRef {
  std::string name;
  std::optional<int> version;
  std::string alias;
};
absl::StatusOr<ModelRef> ParseModelRef(absl::string_view text);

// A version as stored: `model.name` is the bare name.
struct StoredModel {
  std::string tenant;
  ModelVersion model;
};

class ModelStore {
 public:
  // Opens its own connection to the database at `path` and runs pending
  // migrations (the same ones as JobStore::Open).
  static absl::StatusOr<std::unique_ptr<ModelStore>> Open(const std::string& path);

  // Stores `model` as the next version of (tenant, model.name) — 1 for a new
  // name — with `alias` pointing at it when not empty, in one commit. Returns
  // it with its version, aliases and creation time.
  absl::StatusOr<ModelVersion> Add(const std::string& tenant, ModelVersion model,
                                   const std::string& alias);
  // Every version of `tenant`'s models, or of everyone's when `tenant` is
  // nullopt; by tenant, name and version.
  absl::StatusOr<std::vector<StoredModel>> List(const std::optional<std::string>& tenant);
  // The version `ref` names. NotFound naming the model, version or alias.
  absl::StatusOr<ModelVersion> Find(const std::string& tenant, const ModelRef& ref);
  // Points the alias at `version` (moving it). NotFound for an unknown
  // model or version.
  absl::StatusOr<ModelVersion> SetAlias(const std::string& tenant, const std::string& name,
                                        const std::string& alias, int version);

 private:
  explicit ModelStore(Database db) : db_(std::move(db)) {}
  absl::StatusOr<ModelVersion> FindLocked(const std::string& tenant, const ModelRef& ref);
  absl::StatusOr<std::vector<StoredModel>> Select(absl::string_view where,
                                                  const std::vector<std::string>& params);

  std::mutex mu_;
  Database db_;
};

}  // namespace dlp::server
