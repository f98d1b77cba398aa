// JobStore's pipelines: a pipeline row and its jobs, inserted in one commit.
#include <utility>

#include "absl/strings/str_cat.h"
#include "dlp/status.h"
#include "server/store/job_store.h"
#include "server/store/stored_spec.h"

namespace dlp::server {
namespace {

absl::StatusOr<std::vector<PipelineRecord>> ReadPipelines(Database& db, Statement& select) {
  std::vector<PipelineRecord> out;
  while (true) {
    DLP_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    PipelineRecord p;
    p.seq = select.Int(0);
    p.tenant = select.Text(1);
    p.name = select.Text(2);
    p.created = absl::FromUnixMicros(select.Int(3));
    out.push_back(std::move(p));
  }
  DLP_ASSIGN_OR_RETURN(
      Statement jobs,
      db.Prepare("SELECT name, job_id FROM pipeline_jobs WHERE pipeline_id=? ORDER BY ordinal"));
  for (PipelineRecord& p : out) {
    jobs.Reset().Bind(1, p.seq);
    while (true) {
      DLP_ASSIGN_OR_RETURN(bool row, jobs.Step());
      if (!row) break;
      p.jobs.emplace_back(jobs.Text(0), jobs.Int(1));
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<PipelineRecord> JobStore::InsertPipeline(PipelineRecord pipeline,
                                                        std::vector<PipelineMember>& members,
                                                        const PrepareMember& prepare) {
  Transaction tx(db_);
  DLP_RETURN_IF_ERROR(tx.begin_status());
  {
    DLP_ASSIGN_OR_RETURN(
        Statement s,
        db_.Prepare("INSERT INTO pipelines (tenant, name, created_us) VALUES (?, ?, ?)"));
    s.Bind(1, pipeline.tenant).Bind(2, pipeline.name).Bind(3, absl::ToUnixMicros(pipeline.created));
    DLP_RETURN_IF_ERROR(s.Run());
    pipeline.seq = db_.LastInsertRowId();
  }
  DLP_ASSIGN_OR_RETURN(Statement member,
                       db_.Prepare("INSERT INTO pipeline_jobs (pipeline_id, ordinal, name, "
                                   "job_id) VALUES (?, ?, ?, ?)"));
  std::map<std::string, std::string> ids;
  pipeline.jobs.clear();
  for (PipelineMember& m : members) {
    DLP_RETURN_IF_ERROR(prepare(m.record.job.spec, ids));
    absl::StatusOr<std::string> spec = StoredSpecText(m.record.job.spec);
    if (!spec.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("spec.jobs.", m.name, ": ", spec.status().message()));
    }
    m.record.job.created = pipeline.created;
    DLP_RETURN_IF_ERROR(InsertRow(m.record, *spec));
    member.Reset()
        .Bind(1, pipeline.seq)
        .Bind(2, static_cast<int64_t>(pipeline.jobs.size()))
        .Bind(3, m.name)
        .Bind(4, m.record.seq);
    DLP_RETURN_IF_ERROR(member.Run());
    ids[m.name] = m.record.job.id;
    pipeline.jobs.emplace_back(m.name, m.record.seq);
  }
  DLP_RETURN_IF_ERROR(tx.Commit());
  return pipeline;
}

absl::StatusOr<PipelineRecord> JobStore::GetPipeline(int64_t seq) {
  DLP_ASSIGN_OR_RETURN(
      Statement s, db_.Prepare("SELECT id, tenant, name, created_us FROM pipelines WHERE id=?"));
  s.Bind(1, seq);
  DLP_ASSIGN_OR_RETURN(std::vector<PipelineRecord> found, ReadPipelines(db_, s));
  if (found.empty()) return absl::NotFoundError(absl::StrCat("pipeline ", seq, " not found"));
  return std::move(found.front());
}

absl::StatusOr<std::vector<PipelineRecord>> JobStore::ListPipelines(const std::string& tenant) {
  DLP_ASSIGN_OR_RETURN(Statement s,
                       db_.Prepare("SELECT id, tenant, name, created_us FROM pipelines WHERE "
                                   "(?1 = '' OR tenant = ?1) ORDER BY id"));
  s.Bind(1, tenant);
  return ReadPipelines(db_, s);
}

absl::StatusOr<std::vector<int64_t>> JobStore::JobsNamed(const std::string& tenant,
                                                         const std::string& name, int limit) {
  DLP_ASSIGN_OR_RETURN(Statement s,
                       db_.Prepare("SELECT id FROM jobs WHERE name = ?1 AND (?2 = '' OR "
                                   "tenant = ?2) ORDER BY id DESC LIMIT ?3"));
  s.Bind(1, name).Bind(2, tenant).Bind(3, int64_t{limit});
  std::vector<int64_t> ids;
  while (true) {
    DLP_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    ids.push_back(s.Int(0));
  }
  return ids;
}

absl::StatusOr<int64_t> JobStore::NewestJobNamed(const std::string& tenant,
                                                 const std::string& name) {
  DLP_ASSIGN_OR_RETURN(std::vector<int64_t> ids, JobsNamed(tenant, name, 1));
  if (ids.empty()) return absl::NotFoundError(absl::StrCat("no job named ", name));
  return ids[0];
}

}  // namespace dlp::server
