#include "backends/slurm/pipelines.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "base/files/atomic_write.h"
#include "contract/files.h"
#include "dlp/status.h"

namespace dlp::internal {
namespace {

namespace fs = std::filesystem;

absl::Status NoPipeline(std::string_view id) {
  return absl::NotFoundError(absl::StrCat("pipeline ", std::string(id), " not found"));
}

int64_t IdNumber(const std::string& id) {
  int64_t n = 0;
  return absl::SimpleAtoi(id, &n) ? n : 0;
}

}  // namespace

std::string SlurmPipelines::RecordPath(std::string_view id) const {
  return absl::StrCat(record_dir_, "/", std::string(id), ".json");
}

absl::StatusOr<Pipeline> SlurmPipelines::Submit(const PipelineSpec& spec,
                                                const SubmitSlurmJob& submit) {
  DLP_ASSIGN_OR_RETURN(std::vector<size_t> order, PipelineOrder(spec));
  Pipeline p;
  p.name = spec.name;
  p.created = absl::Now();
  std::map<std::string, std::string> ids, outputs;
  // What is already in Slurm goes when a later job cannot follow it.
  const auto undo = [&](const std::string& where, const absl::Status& error) {
    std::vector<std::string> cancelled, left;
    for (auto it = p.jobs.rbegin(); it != p.jobs.rend(); ++it) {
      const std::string entry = absl::StrCat(it->name, "=", it->job);
      (jobs_.Cancel(it->job).ok() ? cancelled : left).push_back(entry);
    }
    std::string message = absl::StrCat(where, error.message());
    if (!cancelled.empty()) {
      absl::StrAppend(&message, "; cancelled the jobs already submitted (",
                      absl::StrJoin(cancelled, ", "), ")");
    }
    if (!left.empty()) {
      absl::StrAppend(&message, "; could not cancel ", absl::StrJoin(left, ", "),
                      ": cancel them with `dlp cancel`");
    }
    return absl::Status(error.code(), message);
  };
  for (size_t i : order) {
    const PipelineJobSpec& member = spec.jobs[i];
    JobSpec job = member.spec;
    PipelineJob entry;
    entry.name = member.name;
    for (JobDependency& d : job.depends_on) {
      entry.depends_on.push_back(d.job);
      d.job = ids.at(d.job);  // ValidatePipelineSpec: a sibling, submitted before
    }
    absl::Status substituted = SubstituteJobOutputs(job, outputs);
    absl::StatusOr<SubmittedSlurmJob> submitted =
        substituted.ok() ? submit(job) : absl::StatusOr<SubmittedSlurmJob>(substituted);
    if (!submitted.ok()) {
      return undo(absl::StrCat("spec.jobs.", member.name, ": "), submitted.status());
    }
    ids[member.name] = submitted->job.id;
    outputs[member.name] = submitted->output_dir;
    entry.job = submitted->job.id;
    entry.state = submitted->job.state;
    p.jobs.push_back(std::move(entry));
  }
  p.id = p.jobs.front().job;
  std::error_code ec;
  fs::create_directories(record_dir_, ec);
  absl::Status written =
      ec ? absl::InternalError(absl::StrCat("cannot create ", record_dir_, ": ", ec.message()))
         : base::WriteFileAtomically(RecordPath(p.id), PipelineToJson(p, 2));
  if (!written.ok()) return undo("the pipeline's record: ", written);
  p.state = PipelineState(p.jobs);
  return p;
}

absl::StatusOr<Pipeline> SlurmPipelines::Get(std::string_view id) {
  if (IdNumber(std::string(id)) <= 0) return NoPipeline(id);
  std::ifstream in(RecordPath(id));
  if (!in) return NoPipeline(id);
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<Pipeline> record = PipelineFromJson(text.str());
  if (!record.ok()) {
    return absl::DataLossError(absl::StrCat("pipeline ", std::string(id), ": ", RecordPath(id),
                                            ": ", record.status().message()));
  }
  return Refresh(*std::move(record));
}

// The jobs' states as Slurm has them now. Ended states are kept in the
// record, for when Slurm has forgotten the jobs (MinJobAge).
absl::StatusOr<Pipeline> SlurmPipelines::Refresh(Pipeline p) {
  bool ended_now = false;
  for (PipelineJob& j : p.jobs) {
    if (IsTerminal(j.state)) continue;
    absl::StatusOr<Job> job = jobs_.Get(j.job);
    if (absl::IsNotFound(job.status())) {
      j.reason = absl::StrCat("Slurm no longer knows job ", j.job);
      continue;
    }
    if (!job.ok()) return job.status();
    j.state = job->state;
    j.reason = job->reason;
    ended_now = ended_now || IsTerminal(j.state);
  }
  // Best effort: a record not rewritten is read from Slurm again.
  if (ended_now) (void)base::WriteFileAtomically(RecordPath(p.id), PipelineToJson(p, 2));
  p.state = PipelineState(p.jobs);
  return p;
}

absl::StatusOr<std::vector<Pipeline>> SlurmPipelines::List() {
  std::vector<std::string> ids;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(record_dir_, ec)) {
    const std::string file = entry.path().filename().string();
    if (!absl::EndsWith(file, ".json")) continue;
    const std::string id = file.substr(0, file.size() - 5);
    if (IdNumber(id) > 0) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end(),
            [](const std::string& a, const std::string& b) { return IdNumber(a) < IdNumber(b); });
  std::vector<Pipeline> out;
  for (const std::string& id : ids) {
    DLP_ASSIGN_OR_RETURN(Pipeline p, Get(id));
    out.push_back(std::move(p));
  }
  return out;
}

absl::StatusOr<Pipeline> SlurmPipelines::Cancel(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(Pipeline p, Get(id));
  // The last first: a dependent is never left to see its dependency cancelled.
  for (auto it = p.jobs.rbegin(); it != p.jobs.rend(); ++it) {
    if (IsTerminal(it->state)) continue;
    absl::StatusOr<Job> cancelled = jobs_.Cancel(it->job);
    if (!cancelled.ok() && !absl::IsNotFound(cancelled.status())) return cancelled.status();
  }
  return Get(id);
}

}  // namespace dlp::internal
