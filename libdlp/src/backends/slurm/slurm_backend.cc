// The Slurm backend: a dlp job is one Slurm batch job. Its id is Slurm's job
// id; its folder WORKDIR/KEY (on the shared filesystem) holds spec.json, the
// group file, the per-replica logs, dlp-run's status file and the traces; the
// job's comment names KEY.
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "backends/factories.h"
#include "backends/slurm/batch_script.h"
#include "backends/slurm/job_mapping.h"
#include "backends/slurm/logs.h"
#include "backends/slurm/pipelines.h"
#include "backends/slurm/retrying_transport.h"
#include "backends/slurm/transport.h"
#include "contract/dlp_run.h"
#include "contract/group.h"
#include "contract/output_folder.h"
#include "dlp/backend_capabilities.h"
#include "dlp/codec.h"
#include "dlp/job_dependencies.h"
#include "dlp/profile.h"
#include "dlp/spec.h"
#include "dlp/status.h"
#include "job/job_group.h"

extern char** environ;

namespace dlp::internal {
namespace {

namespace fs = std::filesystem;

std::string CurrentUser() {
  if (passwd* pw = getpwuid(geteuid())) return pw->pw_name;
  return absl::StrCat(geteuid());
}

// The submitter's environment for the REST API, as sbatch would export it;
// Slurm's own variables from an enclosing allocation are left out.
std::map<std::string, std::string> SubmitterEnvironment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    size_t eq = entry.find('=');
    if (eq == std::string::npos || entry.rfind("SLURM_", 0) == 0) continue;
    env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return env;
}

absl::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

// Slurm orders a pipeline's jobs itself (--dependency) and its job folders
// sit on a shared filesystem, where the output can be read.
class SlurmBackend final : public Backend, public PipelineService, public ArtifactStore {
 public:
  SlurmBackend(std::unique_ptr<SlurmTransport> transport, SlurmJobLayout defaults,
               std::string workdir, std::string user)
      : transport_(std::move(transport)), defaults_(std::move(defaults)),
        workdir_(std::move(workdir)), user_(std::move(user)) {}

  std::string Name() const override { return "slurm"; }
  PipelineService* pipelines() override { return this; }
  ArtifactStore* artifacts() override { return this; }

  absl::StatusOr<Job> Submit(const JobSpec& submitted) override {
    DLP_ASSIGN_OR_RETURN(SubmittedSlurmJob job, SubmitJob(submitted));
    return job.job;
  }

  absl::StatusOr<SubmittedSlurmJob> SubmitJob(const JobSpec& submitted) {
    JobSpec spec = submitted;
    DLP_RETURN_IF_ERROR(ResolveDependsOn(spec));
    SlurmJobLayout layout = defaults_;
    layout.job_dir = absl::StrCat(workdir_, "/", NewKey(spec.name));
    if (layout.dlp_run.empty()) {
      absl::StatusOr<std::string> found = contract::FindDlpRun();
      if (!found.ok()) {
        return absl::FailedPreconditionError(
            absl::StrCat("the Slurm tasks run dlp-run: ", found.status().message(),
                         " (set the context's dlp-run field to its path on the nodes)"));
      }
      layout.dlp_run = *found;
    }
    DLP_ASSIGN_OR_RETURN(SlurmSubmission submission, BuildSubmission(spec, layout));
    const contract::JobFolder folder{layout.job_dir};
    std::error_code ec;
    fs::create_directories(folder.LogDir(), ec);
    if (!ec) fs::create_directories(folder.TraceDir(), ec);
    if (!ec) fs::create_directories(folder.OutputDir(), ec);
    if (ec) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot create the job folder ", layout.job_dir, ": ", ec.message(),
          " (set the context's workdir to a shared, writable folder)"));
    }
    DLP_RETURN_IF_ERROR(WriteFile(layout.job_dir + "/spec.json", JobSpecToJson(spec, 2)));
    DLP_RETURN_IF_ERROR(contract::WriteGroupFile(folder.GroupFile(), JobGroup(spec)));
    DLP_RETURN_IF_ERROR(WriteFile(layout.job_dir + "/job.sh", submission.script));
    if (transport_->Name() == "rest") submission.environment = SubmitterEnvironment();
    auto id = transport_->Submit(submission);
    if (!id.ok()) {
      fs::remove_all(layout.job_dir, ec);
      return id.status();
    }
    Job job;
    job.id = *id;
    job.name = spec.name;
    job.tenant = user_;
    job.queue = submission.partition;
    job.state = JobState::kQueued;
    job.created = absl::Now();
    job.spec = spec;
    return SubmittedSlurmJob{std::move(job), folder.OutputDir()};
  }

  // spec.dependsOn names become the Slurm ids of the user's newest dlp job of
  // that name (ids are left to sbatch, which refuses unknown ones).
  absl::Status ResolveDependsOn(JobSpec& spec) {
    std::optional<std::vector<SlurmJobRecord>> records;
    for (size_t i = 0; i < spec.depends_on.size(); ++i) {
      JobDependency& d = spec.depends_on[i];
      int64_t id = 0;
      if (absl::SimpleAtoi(d.job, &id)) continue;
      if (!records) {
        DLP_ASSIGN_OR_RETURN(records, transport_->Jobs());
      }
      int64_t newest = 0;
      for (const SlurmJobRecord& r : *records) {
        int64_t rid = 0;
        if (r.user == user_ && r.name == SlurmJobName(d.job) &&
            !KeyFromComment(r.comment).empty() && absl::SimpleAtoi(r.id, &rid)) {
          newest = std::max(newest, rid);
        }
      }
      if (newest == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("spec.dependsOn[", i, "].job: no job named ", d.job));
      }
      d.job = absl::StrCat(newest);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Job> Get(std::string_view id) override {
    DLP_RETURN_IF_ERROR(CheckId(id));
    DLP_ASSIGN_OR_RETURN(SlurmJobRecord record, transport_->Job(std::string(id)));
    Job job = ToJob(record, JobDir(record));
    // --kill-on-invalid-dep cancelled it: name the dependency, as dlpd does.
    if (record.reason == "DependencyNeverSatisfied") {
      DependencyCheck check = CheckDependencies(job.spec, [this](const std::string& dep) {
        absl::StatusOr<Job> j = Get(dep);
        return j.ok() ? std::optional<JobState>(j->state) : std::nullopt;
      });
      if (check.verdict == DependencyVerdict::kNever) job.reason = check.reason;
    }
    return job;
  }

  absl::StatusOr<std::vector<Job>> List(const ListFilter& filter) override {
    DLP_ASSIGN_OR_RETURN(std::vector<SlurmJobRecord> records, transport_->Jobs());
    std::vector<Job> jobs;
    for (const SlurmJobRecord& record : records) {
      // squeue --json ignores its filters in 22.05: the user's dlp jobs only.
      if (record.user != user_ || KeyFromComment(record.comment).empty()) continue;
      Job job = ToJob(record, JobDir(record));
      if (filter.state && job.state != *filter.state) continue;
      if (!filter.queue.empty() && job.queue != filter.queue) continue;
      bool labels_match = std::all_of(filter.labels.begin(), filter.labels.end(), [&](auto& kv) {
        auto it = job.spec.labels.find(kv.first);
        return it != job.spec.labels.end() && it->second == kv.second;
      });
      if (labels_match) jobs.push_back(std::move(job));
    }
    std::sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) {
      int64_t x = 0, y = 0;
      (void)absl::SimpleAtoi(a.id, &x);
      (void)absl::SimpleAtoi(b.id, &y);
      return x < y;
    });
    if (filter.limit > 0 && jobs.size() > static_cast<size_t>(filter.limit)) {
      jobs.erase(jobs.begin(), jobs.end() - filter.limit);
    }
    return jobs;
  }

  absl::StatusOr<Job> Cancel(std::string_view id) override {
    DLP_ASSIGN_OR_RETURN(Job job, Get(id));
    if (IsTerminal(job.state)) return job;
    DLP_RETURN_IF_ERROR(transport_->Cancel(std::string(id)));
    return Get(id);
  }

  absl::StatusOr<Job> Wait(std::string_view id, absl::Duration timeout) override {
    const absl::Time deadline = absl::Now() + timeout;
    absl::Duration pause = absl::Milliseconds(100);
    while (true) {
      DLP_ASSIGN_OR_RETURN(Job job, Get(id));
      if (IsTerminal(job.state) || absl::Now() >= deadline) return job;
      std::this_thread::sleep_for(
          absl::ToChronoMilliseconds(std::min(pause, deadline - absl::Now())));
      pause = std::min(pause * 2, absl::Seconds(1));
    }
  }

  absl::Status Logs(std::string_view id, const LogOptions& options,
                    const LogSink& sink) override {
    DLP_RETURN_IF_ERROR(CheckId(id));
    DLP_ASSIGN_OR_RETURN(SlurmJobRecord record, transport_->Job(std::string(id)));
    const std::string dir = JobDir(record);
    if (dir.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "job ", std::string(id), " was not submitted by dlp (or its folder is not under ", workdir_,
          "); its output is where sbatch's --output says"));
    }
    const std::string job_id(id);
    return ReadJobLogs(dir, options, sink, [this, job_id]() -> absl::StatusOr<bool> {
      DLP_ASSIGN_OR_RETURN(SlurmJobRecord r, transport_->Job(job_id));
      return IsTerminal(MapSlurmState(r.state));
    });
  }

  // The ranks trace into the job's folder (dlp-run --trace-dir in the batch script).
  absl::StatusOr<std::vector<TraceFile>> TraceFiles(std::string_view id) override {
    DLP_ASSIGN_OR_RETURN(contract::JobFolder folder, DlpJobFolder(id, "trace folder"));
    return ReadTraceDir(folder.TraceDir());
  }

  // The ranks write DLP_OUTPUT_DIR into the shared job folder: read it there.
  absl::StatusOr<std::vector<Artifact>> Artifacts(std::string_view id,
                                                  std::string_view path) override {
    DLP_ASSIGN_OR_RETURN(std::string dir, OutputDir(id));
    absl::StatusOr<contract::TenantFolder> output = contract::OpenOwnFolder(dir);
    if (absl::IsNotFound(output.status())) return std::vector<Artifact>{};  // not started
    if (!output.ok()) return output.status();
    DLP_ASSIGN_OR_RETURN(std::vector<contract::OutputFile> files,
                         contract::ListArtifacts(*output, path, /*digests=*/true));
    std::vector<Artifact> artifacts;
    for (contract::OutputFile& f : files) {
      artifacts.push_back({std::move(f.path), f.size, std::move(f.sha256), f.mtime});
    }
    return artifacts;
  }

  absl::Status ReadArtifact(std::string_view id, std::string_view path,
                            const ByteSink& sink) override {
    DLP_ASSIGN_OR_RETURN(std::string dir, OutputDir(id));
    DLP_ASSIGN_OR_RETURN(contract::TenantFolder output, contract::OpenOwnFolder(dir));
    DLP_ASSIGN_OR_RETURN(contract::OpenedArtifact file, contract::OpenArtifact(output, path));
    return contract::StreamFile(file.fd.get(), sink);
  }

  absl::StatusOr<std::vector<Event>> Events(std::string_view id) override {
    DLP_ASSIGN_OR_RETURN(Job job, Get(id));
    std::vector<Event> events;
    if (job.created) events.push_back({*job.created, "Submitted", "sbatch accepted the job"});
    if (job.started) {
      events.push_back({*job.started, "Started", absl::StrCat("running on ", job.replicas.empty() ? "Slurm" : job.replicas[0].host)});
    }
    if (job.finished) {
      events.push_back({*job.finished, std::string(JobStateName(job.state)),
                        job.reason.empty() ? absl::StrCat("exit code ", job.exit_code.value_or(0))
                                           : job.reason});
    }
    return events;
  }

  absl::StatusOr<Pipeline> SubmitPipeline(const PipelineSpec& spec) override {
    return pipelines_.Submit(spec, [this](const JobSpec& job) { return SubmitJob(job); });
  }
  absl::StatusOr<Pipeline> GetPipeline(std::string_view id) override { return pipelines_.Get(id); }
  absl::StatusOr<std::vector<Pipeline>> ListPipelines() override { return pipelines_.List(); }
  absl::StatusOr<Pipeline> CancelPipeline(std::string_view id) override {
    return pipelines_.Cancel(id);
  }

  absl::StatusOr<std::string> Render(const JobSpec& spec) override {
    SlurmJobLayout layout = defaults_;
    layout.job_dir = absl::StrCat(workdir_, "/", SlurmJobName(spec.name), "-KEY");
    DLP_ASSIGN_OR_RETURN(SlurmSubmission submission, BuildSubmission(spec, layout));
    const contract::JobFolder folder{layout.job_dir};
    return absl::StrCat(submission.script, "# ", folder.GroupFile(), "\n",
                        contract::GroupToJson(JobGroup(spec)));
  }

 private:
  static absl::Status CheckId(std::string_view id) {
    int64_t n;
    if (!absl::SimpleAtoi(std::string(id), &n) || n <= 0) {
      return absl::NotFoundError(absl::StrCat("no job '", std::string(id), "': Slurm job ids are numbers"));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> OutputDir(std::string_view id) {
    DLP_ASSIGN_OR_RETURN(contract::JobFolder folder, DlpJobFolder(id, "output folder"));
    return folder.OutputDir();
  }

  // The folder of a job dlp submitted; FailedPrecondition, naming `what` it
  // lacks, for a job submitted otherwise.
  absl::StatusOr<contract::JobFolder> DlpJobFolder(std::string_view id, const char* what) {
    DLP_RETURN_IF_ERROR(CheckId(id));
    DLP_ASSIGN_OR_RETURN(SlurmJobRecord record, transport_->Job(std::string(id)));
    const std::string dir = JobDir(record);
    if (dir.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "job ", std::string(id), " was not submitted by dlp (or its folder is not under ",
          workdir_, "); it has no ", what));
    }
    return contract::JobFolder{dir};
  }

  std::string JobDir(const SlurmJobRecord& record) const {
    std::string key = KeyFromComment(record.comment);
    if (key.empty()) return "";
    std::string dir = absl::StrCat(workdir_, "/", key);
    std::error_code ec;
    return fs::is_directory(dir, ec) ? dir : "";
  }

  std::string NewKey(const std::string& name) {
    absl::MutexLock lock(&mu_);
    return absl::StrFormat("%s-%d-%08x", SlurmJobName(name), absl::ToUnixMicros(absl::Now()),
                           static_cast<uint32_t>(random_()));
  }

  std::unique_ptr<SlurmTransport> transport_;
  SlurmJobLayout defaults_;
  std::string workdir_;
  std::string user_;
  SlurmPipelines pipelines_{*this, workdir_ + "/pipelines"};
  absl::Mutex mu_;
  std::mt19937 random_{std::random_device{}()};
};

}  // namespace

absl::StatusOr<std::unique_ptr<Backend>> CreateSlurmBackend(const Context& context) {
  SlurmJobLayout defaults;
  defaults.partition = context.Field("partition");
  defaults.account = context.Field("account");
  defaults.qos = context.Field("qos");
  defaults.dlp_run = context.Field("dlp-run");
  if (defaults.dlp_run.empty()) {
    // Found now for `dlp render`; Submit says so when there is none.
    defaults.dlp_run = contract::FindDlpRun().value_or("");
  }
  std::string workdir = context.Field("workdir", DefaultStateDir() + "/slurm");
  if (workdir.empty() || workdir[0] != '/') {
    return absl::InvalidArgumentError(absl::StrCat(
        "context '", context.name, "': workdir must be an absolute path on a filesystem "
        "every Slurm node shares (got '", workdir, "')"));
  }
  const std::string user = context.Field("user", CurrentUser());
  std::unique_ptr<SlurmTransport> transport;
  const std::string rest_url = context.Field("rest-url");
  if (rest_url.empty()) {
    transport = NewCliTransport();
  } else {
    const std::string token_file = context.Field("token-file");
    if (token_file.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "context '", context.name, "': rest-url needs token-file (a JWT from `scontrol token`)"));
    }
    transport = NewRestTransport(rest_url, user, token_file);
  }
  return std::make_unique<SlurmBackend>(WithRetries(std::move(transport)), std::move(defaults),
                                        workdir, user);
}

}  // namespace dlp::internal
