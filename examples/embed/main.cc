// embed JOB.yaml: submits a job through the current dlp context, prints its logs
// as they come (metric lines left out, as `dlp submit --follow` does), waits with
// a progress callback, prints the metrics the job reported, and exits with the
// job's outcome (0 succeeded, 1 failed, 5 cancelled; 2-4 when it could not be
// submitted).
#include <cstdio>
#include <string>

#include "dlp/dlp.h"

static int Fail(const absl::Status& status) {
  std::fprintf(stderr, "embed: %s\n", std::string(status.message()).c_str());
  return static_cast<int>(dlp::ExitCodeForStatus(status));
}

int main(int argc, char** argv) {
  if (argc != 2) return Fail(absl::InvalidArgumentError("usage: embed JOB.yaml"));

  auto spec = dlp::LoadJobSpec(argv[1]);
  if (!spec.ok()) return Fail(spec.status());
  auto client = dlp::Client::Create();  // $DLP_CONTEXT or the config's current context
  if (!client.ok()) return Fail(client.status());
  auto job = (*client)->Submit(*spec);
  if (!job.ok()) return Fail(job.status());
  std::printf("submitted job %s\n", job->id.c_str());

  dlp::LogOptions follow;
  follow.follow = true;
  follow.metrics = false;  // DLP_METRIC lines are read below instead
  absl::Status logs = (*client)->Logs(job->id, follow, [](const dlp::LogLine& line) {
    std::printf("[%s] %s\n", line.replica.c_str(), line.text.c_str());
    return true;
  });
  if (!logs.ok()) return Fail(logs);

  dlp::WaitOptions wait;
  wait.on_update = [last = dlp::JobState::kQueued](const dlp::Job& j) mutable {
    if (j.state == last) return;
    last = j.state;
    std::fprintf(stderr, "job %s: %s\n", j.id.c_str(),
                 std::string(dlp::JobStateName(last)).c_str());
  };
  auto done = (*client)->Wait(job->id, wait);
  if (!done.ok()) return Fail(done.status());

  auto metrics = (*client)->Metrics(job->id);
  if (!metrics.ok()) return Fail(metrics.status());
  for (const dlp::MetricPoint& p : *metrics) {
    std::printf("metric %s %s=%g step=%lld\n", p.replica.c_str(), p.name.c_str(), p.value,
                static_cast<long long>(p.step));
  }
  std::printf("job %s %s\n", done->id.c_str(), std::string(dlp::JobStateName(done->state)).c_str());
  return static_cast<int>(dlp::ExitCodeForJob(*done));
}
