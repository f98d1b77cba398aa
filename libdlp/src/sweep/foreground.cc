#include "sweep/foreground.h"

#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "config/paths.h"
#include "dlp/config.h"
#include "dlp/status.h"

namespace dlp::internal {
namespace {

std::string SweepDir() { return DefaultStateDir() + "/sweeps"; }

class BackendHost : public TrialHost {
 public:
  explicit BackendHost(Backend& backend) : backend_(backend) {}

  absl::StatusOr<std::string> Submit(const JobSpec& spec) override {
    DLP_ASSIGN_OR_RETURN(Job job, backend_.Submit(spec));
    return job.id;
  }
  absl::StatusOr<std::string> FindTrialJob(const std::string& sweep_id, int number) override {
    ListFilter filter;
    filter.labels[std::string(kSweepLabel)] = sweep_id;
    filter.labels[std::string(kTrialLabel)] = absl::StrCat(number);
    absl::StatusOr<std::vector<Job>> jobs = backend_.List(filter);
    if (jobs.status().code() == absl::StatusCode::kUnimplemented) return std::string();
    if (!jobs.ok()) return jobs.status();
    for (const Job& j : *jobs) {  // a backend may not filter by label itself
      auto s = j.spec.labels.find(std::string(kSweepLabel));
      auto t = j.spec.labels.find(std::string(kTrialLabel));
      if (s != j.spec.labels.end() && s->second == sweep_id && t != j.spec.labels.end() &&
          t->second == absl::StrCat(number)) {
        return j.id;
      }
    }
    return std::string();
  }
  absl::StatusOr<Job> Get(const std::string& job) override { return backend_.Get(job); }
  absl::Status Cancel(const std::string& job, const std::string&) override {
    return backend_.Cancel(job).status();
  }
  absl::StatusOr<std::vector<MetricPoint>> NewMetrics(const std::string& job, bool) override {
    std::vector<MetricPoint> points;
    LogOptions options;
    options.metrics_only = true;  // append-only, so the points already seen stay first
    DLP_RETURN_IF_ERROR(backend_.Logs(job, options, [&](const LogLine& line) {
      if (std::optional<MetricPoint> p = MetricFromLogLine(line)) points.push_back(*p);
      return true;
    }));
    size_t& seen = seen_[job];
    std::vector<MetricPoint> fresh(
        points.begin() + static_cast<std::ptrdiff_t>(std::min(seen, points.size())), points.end());
    seen = std::max(seen, points.size());
    return fresh;
  }

 private:
  Backend& backend_;
  std::map<std::string, size_t> seen_;  // metric points already returned, by job
};

class FileSaver : public SweepSaver {
 public:
  absl::Status Save(const Sweep& sweep, const std::set<int>&) override {
    return WriteFileInNewDirs(ForegroundSweepPath(sweep.id), SweepToJson(sweep), 0600);
  }
};

}  // namespace

bool IsForegroundSweep(std::string_view id) {
  return absl::StartsWith(
      absl::string_view(id.data(), id.size()),
      absl::string_view(kForegroundSweepPrefix.data(), kForegroundSweepPrefix.size()));
}

std::string ForegroundSweepPath(std::string_view id) {
  return absl::StrCat(SweepDir(), "/", absl::string_view(id.data(), id.size()), ".json");
}

absl::StatusOr<Sweep> CreateForegroundSweep(const SweepSpec& spec) {
  Sweep sweep;
  sweep.id = absl::StrCat(std::string(kForegroundSweepPrefix), absl::ToUnixMillis(absl::Now()));
  sweep.spec = spec;
  sweep.created = absl::Now();
  DLP_RETURN_IF_ERROR(FileSaver().Save(sweep, {}));
  return sweep;
}

absl::StatusOr<Sweep> LoadForegroundSweep(std::string_view id) {
  const std::string path = ForegroundSweepPath(id);
  std::error_code ec;
  if (!IsForegroundSweep(id) || !std::filesystem::exists(path, ec)) {
    return absl::NotFoundError(absl::StrCat("no sweep ", std::string(id)));
  }
  DLP_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return SweepFromJson(text);
}

std::vector<Sweep> ListForegroundSweeps() {
  std::vector<Sweep> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(SweepDir(), ec)) {
    const std::string name = entry.path().stem().string();
    if (!IsForegroundSweep(name) || entry.path().extension() != ".json") continue;
    if (absl::StatusOr<Sweep> s = LoadForegroundSweep(name); s.ok()) out.push_back(*s);
  }
  std::sort(out.begin(), out.end(), [](const Sweep& a, const Sweep& b) { return a.id < b.id; });
  return out;
}

std::unique_ptr<TrialHost> BackendTrialHost(Backend& backend) {
  return std::make_unique<BackendHost>(backend);
}

std::unique_ptr<SweepSaver> ForegroundSaver() { return std::make_unique<FileSaver>(); }

}  // namespace dlp::internal
