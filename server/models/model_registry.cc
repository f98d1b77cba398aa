#include "server/models/model_registry.h"

#include "absl/strings/str_cat.h"
#include "dlp/codec.h"
#include "dlp/profile.h"
#include "dlp/status.h"
#include "server/logs/log_reader.h"
#include "server/models/git_head.h"
#include "server/store/tenant_store.h"

namespace dlp::server {

absl::StatusOr<std::string> ModelRegistry::KeyFor(const std::string& of,
                                                  const std::string& tenant) {
  if (tenant.empty()) return of.empty() ? std::string(kOwnerTenant) : of;
  if (of.empty() || of == tenant) return tenant;
  return absl::NotFoundError(absl::StrCat("no models of tenant \"", of, "\""));
}

ModelVersion ModelRegistry::Shown(ModelVersion model, const std::string& key,
                                  const std::string& tenant) {
  if (tenant.empty() && key != kOwnerTenant) model.name = absl::StrCat(key, "/", model.name);
  return model;
}

std::map<std::string, double> ModelRegistry::FinalMetrics(
    LogFolderOpener log_folder, const std::vector<JobReplica>& ranks) const {
  LogReaderOptions options;
  options.folder = std::move(log_folder);
  options.metrics_only = true;
  LogReader reader(std::move(options));
  std::map<std::string, std::map<std::string, double>> last;  // replica -> name -> value
  do {  // a chunk of each file at a time (LogReader)
    for (const LogEntry& e : reader.ReadNew(/*final=*/true)) {
      if (std::optional<MetricPoint> p =
              MetricFromLogLine(LogLine{e.replica, e.stream, e.parsed_time, e.text})) {
        last[e.replica][p->name] = p->value;
      }
    }
  } while (!reader.caught_up());
  // Rank 0's value, as a trainer logs it; a metric only others report, from
  // the lowest rank that did.
  std::map<std::string, double> metrics;
  for (const JobReplica& replica : ranks) {
    for (const auto& [name, value] : last[replica.name]) metrics.emplace(name, value);
  }
  return metrics;
}

absl::StatusOr<ModelVersion> ModelRegistry::Register(const ModelRegistration& reg,
                                                     const std::string& tenant) {
  DLP_RETURN_IF_ERROR(ValidateModelName(reg.name));
  if (!reg.alias.empty()) DLP_RETURN_IF_ERROR(ValidateModelName(reg.alias, "alias"));
  DLP_ASSIGN_OR_RETURN(Job job, controller_->Get(reg.job, tenant));
  DLP_ASSIGN_OR_RETURN(std::optional<contract::TenantFolder> output,
                       controller_->OutputFolder(job.id, tenant));
  if (!output) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job.id, " has not started: its output folder has no files yet"));
  }
  DLP_ASSIGN_OR_RETURN(contract::OpenedArtifact file, contract::OpenArtifact(*output, reg.path));
  if (disk_quota_ != nullptr) DLP_RETURN_IF_ERROR(disk_quota_->Check(tenant, file.size));
  // The workdir is read with the rights of the user who owns the job's files.
  DLP_ASSIGN_OR_RETURN(Blob blob, blobs_->Put(file.fd.get()));
  ModelVersion model;
  model.name = reg.name;
  model.file = reg.path.substr(reg.path.rfind('/') + 1);
  model.size = blob.size;
  model.sha256 = blob.sha256;
  model.job = job.id;
  model.job_spec = JobSpecToJson(job.spec);
  model.labels = job.spec.labels;
  model.git_commit = ReadGitCommitAs(job.spec.workdir, output->owner(), output->group());
  model.registered_by = tenant;
  DLP_ASSIGN_OR_RETURN(LogFolderOpener log_folder, controller_->LogFolder(job.id, tenant));
  model.metrics = FinalMetrics(std::move(log_folder), job.replicas);
  const std::string key = tenant.empty() ? kOwnerTenant : tenant;
  DLP_ASSIGN_OR_RETURN(ModelVersion added, store_->Add(key, std::move(model), reg.alias));
  return Shown(std::move(added), key, tenant);
}

absl::StatusOr<std::vector<ModelVersion>> ModelRegistry::List(const std::string& tenant) {
  DLP_ASSIGN_OR_RETURN(
      std::vector<StoredModel> stored,
      store_->List(tenant.empty() ? std::nullopt : std::optional<std::string>(tenant)));
  std::vector<ModelVersion> out;
  for (StoredModel& s : stored) out.push_back(Shown(std::move(s.model), s.tenant, tenant));
  return out;
}

absl::StatusOr<ModelVersion> ModelRegistry::Get(const std::string& ref, const std::string& of,
                                                const std::string& tenant) {
  DLP_ASSIGN_OR_RETURN(std::string key, KeyFor(of, tenant));
  DLP_ASSIGN_OR_RETURN(ModelRef parsed, ParseModelRef(ref));
  DLP_ASSIGN_OR_RETURN(ModelVersion model, store_->Find(key, parsed));
  return Shown(std::move(model), key, tenant);
}

absl::StatusOr<contract::OpenedArtifact> ModelRegistry::OpenFile(const std::string& ref,
                                                                 const std::string& of,
                                                                 const std::string& tenant) {
  DLP_ASSIGN_OR_RETURN(ModelVersion model, Get(ref, of, tenant));
  absl::StatusOr<contract::OpenedArtifact> blob = blobs_->Open(model.sha256);
  if (!blob.ok()) {
    return absl::DataLossError(absl::StrCat("the file of model ", model.Ref(), " (sha256 ",
                                            model.sha256, ") is missing from the blob store"));
  }
  return blob;
}

absl::StatusOr<ModelVersion> ModelRegistry::SetAlias(const std::string& name,
                                                     const std::string& alias, int version,
                                                     const std::string& of,
                                                     const std::string& tenant) {
  DLP_ASSIGN_OR_RETURN(std::string key, KeyFor(of, tenant));
  DLP_ASSIGN_OR_RETURN(ModelVersion model, store_->SetAlias(key, name, alias, version));
  return Shown(std::move(model), key, tenant);
}

}  // namespace dlp::server
