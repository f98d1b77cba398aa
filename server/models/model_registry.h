// The model registry: a registered version is a file copied from a job's
// output folder into the blob store, recorded in the model store with where
// it came from (the job's spec, final metrics, labels and workdir commit) and
// who registered it. Tenants see their own models only (another's is NotFound,
// as its jobs are); the owner sees everyone's, a tenant's named "TENANT/NAME"
// and addressed with `of` = the tenant. Thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dlp/artifacts.h"
#include "server/controller/controller.h"
#include "server/controller/disk_quota.h"
#include "server/logs/log_reader.h"
#include "server/models/blob_store.h"
#include "server/store/model_store.h"

namespace dlp::server {

class ModelRegistry {
 public:
  // Each must outlive the registry; `disk_quota` may be null (no quota).
  ModelRegistry(Controller* controller, ModelStore* store, BlobStore* blobs,
                DiskQuota* disk_quota = nullptr)
      : controller_(controller), store_(store), blobs_(blobs), disk_quota_(disk_quota) {}

  // `tenant` is the caller ("" the owner), who must see the job.
  // InvalidArgument for a bad name, alias or path; NotFound for an unknown
  // job or file; ResourceExhausted when the copy would take the tenant to its
  // disk quota (checked before copying).
  absl::StatusOr<ModelVersion> Register(const ModelRegistration& reg, const std::string& tenant);
  absl::StatusOr<std::vector<ModelVersion>> List(const std::string& tenant);
  // `ref`: "NAME", "NAME:3" or "NAME@ALIAS" of the caller's models, or of
  // tenant `of`'s when the caller is the owner.
  absl::StatusOr<ModelVersion> Get(const std::string& ref, const std::string& of,
                                   const std::string& tenant);
  // The version's file (Get, then its blob).
  absl::StatusOr<contract::OpenedArtifact> OpenFile(const std::string& ref, const std::string& of,
                                                    const std::string& tenant);
  absl::StatusOr<ModelVersion> SetAlias(const std::string& name, const std::string& alias,
                                        int version, const std::string& of,
                                        const std::string& tenant);

 private:
  // The store's tenant key the caller addresses. NotFound when a tenant names
  // another tenant.
  static absl::StatusOr<std::string> KeyFor(const std::string& of, const std::string& tenant);
  // The name as the caller sees it.
  static ModelVersion Shown(ModelVersion model, const std::string& key, const std::string& tenant);
  // The last value of each metric the job's ranks reported: rank 0's (the
  // first of `ranks`, the job's replicas in rank order) where it reported it.
  std::map<std::string, double> FinalMetrics(LogFolderOpener log_folder,
                                             const std::vector<JobReplica>& ranks) const;

  Controller* controller_;
  ModelStore* store_;
  BlobStore* blobs_;
  DiskQuota* disk_quota_;
};

}  // namespace dlp::server
