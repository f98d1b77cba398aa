// Pipelines in dlpd: all jobs of one stored in one commit, in an order where
// each comes after those it depends on, so that its dependsOn and
// ${jobs.NAME.outputDir} can name their ids and folders as they are stored.
#include <algorithm>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "dlp/status.h"
#include "server/controller/controller.h"
#include "server/store/tenant_store.h"
#include "server/support/log.h"

namespace dlp::server {

absl::StatusOr<Pipeline> Controller::SubmitPipeline(PipelineSpec spec, const std::string& tenant) {
  DLP_RETURN_IF_ERROR(ValidatePipelineSpec(spec));
  DLP_ASSIGN_OR_RETURN(std::vector<size_t> order, PipelineOrder(spec));
  std::vector<PipelineMember> members;
  for (size_t i : order) {
    PipelineJobSpec& job = spec.jobs[i];
    absl::Status admitted = Admit(job.spec, tenant);
    if (!admitted.ok()) {
      return absl::Status(admitted.code(),
                          absl::StrCat("spec.jobs.", job.name, ": ", admitted.message()));
    }
    members.push_back({job.name, NewRecord(std::move(job.spec), tenant)});
  }
  PipelineRecord record;
  record.tenant = tenant.empty() ? kOwnerTenant : tenant;
  record.name = spec.name;
  record.created = absl::Now();
  // Siblings' names become their ids, and their output folders are filled in.
  const auto prepare = [this](JobSpec& job,
                              const std::map<std::string, std::string>& ids) -> absl::Status {
    std::map<std::string, std::string> outputs;
    for (const auto& [name, id] : ids) outputs[name] = executor_.Folder(id).OutputDir();
    for (JobDependency& d : job.depends_on) d.job = ids.at(d.job);
    return SubstituteJobOutputs(job, outputs);
  };
  PipelineRecord stored;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return absl::UnavailableError("dlpd is shutting down");
    absl::StatusOr<PipelineRecord> inserted = store_.InsertPipeline(record, members, prepare);
    if (absl::IsInvalidArgument(inserted.status())) return inserted.status();
    if (!inserted.ok()) {
      return absl::UnavailableError(
          absl::StrCat("the job store refused the pipeline: ", inserted.status().message()));
    }
    stored = *std::move(inserted);
    for (PipelineMember& m : members) active_[m.record.seq] = std::move(m.record);
    ++generation_;
    work_ = true;
    wake_.notify_all();
  }
  Log(absl::StrCat("pipeline ", stored.seq, " (", stored.name, "): ", stored.jobs.size(),
                   " jobs submitted"));
  JobStore* store = nullptr;
  std::unique_lock<std::mutex> lock = LockReader(store);
  return PipelineOf(*store, stored);
}

absl::StatusOr<Pipeline> Controller::PipelineOf(JobStore& store, const PipelineRecord& record) {
  Pipeline p;
  p.id = absl::StrCat(record.seq);
  p.name = record.name;
  p.created = record.created;
  std::map<std::string, std::string> names;  // job id -> name in the pipeline
  for (const auto& [name, seq] : record.jobs) names[absl::StrCat(seq)] = name;
  for (const auto& [name, seq] : record.jobs) {
    DLP_ASSIGN_OR_RETURN(JobRecord job, store.Get(seq));
    board_.Overlay(job);
    PipelineJob j;
    j.name = name;
    j.job = job.job.id;
    j.state = job.job.state;
    j.reason = job.job.reason;
    for (const JobDependency& d : job.job.spec.depends_on) {
      auto it = names.find(d.job);
      j.depends_on.push_back(it == names.end() ? d.job : it->second);
    }
    p.jobs.push_back(std::move(j));
  }
  p.state = PipelineState(p.jobs);
  return p;
}

namespace {

absl::StatusOr<PipelineRecord> FindPipeline(JobStore& store, const std::string& id,
                                            const std::string& tenant) {
  int64_t seq = 0;
  const absl::Status not_found = absl::NotFoundError(absl::StrCat("pipeline ", id, " not found"));
  if (!absl::SimpleAtoi(id, &seq) || seq <= 0) return not_found;
  absl::StatusOr<PipelineRecord> record = store.GetPipeline(seq);
  if (absl::IsNotFound(record.status())) return not_found;
  if (record.ok() && !tenant.empty() && record->tenant != tenant) return not_found;
  return record;
}

}  // namespace

absl::StatusOr<Pipeline> Controller::GetPipeline(const std::string& id, const std::string& tenant) {
  JobStore* store = nullptr;
  std::unique_lock<std::mutex> lock = LockReader(store);
  DLP_ASSIGN_OR_RETURN(PipelineRecord record, FindPipeline(*store, id, tenant));
  return PipelineOf(*store, record);
}

absl::StatusOr<std::vector<Pipeline>> Controller::ListPipelines(const std::string& tenant) {
  JobStore* store = nullptr;
  std::unique_lock<std::mutex> lock = LockReader(store);
  DLP_ASSIGN_OR_RETURN(std::vector<PipelineRecord> records, store->ListPipelines(tenant));
  std::vector<Pipeline> out;
  for (const PipelineRecord& r : records) {
    DLP_ASSIGN_OR_RETURN(Pipeline p, PipelineOf(*store, r));
    out.push_back(std::move(p));
  }
  return out;
}

absl::StatusOr<Pipeline> Controller::CancelPipeline(const std::string& id,
                                                    const std::string& tenant) {
  PipelineRecord record;
  {
    JobStore* store = nullptr;
    std::unique_lock<std::mutex> lock = LockReader(store);
    DLP_ASSIGN_OR_RETURN(record, FindPipeline(*store, id, tenant));
  }
  // The last first: a dependent is never left to see its dependency cancelled.
  for (auto it = record.jobs.rbegin(); it != record.jobs.rend(); ++it) {
    DLP_RETURN_IF_ERROR(Cancel(absl::StrCat(it->second), tenant).status());
  }
  return GetPipeline(id, tenant);
}

}  // namespace dlp::server
