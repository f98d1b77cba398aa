#include "dlp/client.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "client/capability.h"
#include "dlp/spec.h"
#include "dlp/status.h"

namespace dlp {
namespace {

// With a progress callback the state is re-read often enough to show changes;
// without one, each backend wait is a long poll. A cancel predicate is polled
// often enough for Ctrl-C to feel immediate.
constexpr absl::Duration kProgressInterval = absl::Seconds(1);
constexpr absl::Duration kQuietInterval = absl::Seconds(30);
constexpr absl::Duration kCancelInterval = absl::Milliseconds(500);

}  // namespace

absl::StatusOr<Context> ResolveContext(const ClientOptions& options) {
  DLP_ASSIGN_OR_RETURN(Config config, LoadConfig(options.config_path));
  DLP_ASSIGN_OR_RETURN(Context context, ResolveContext(config, options.context));
  for (const auto& [key, value] : options.fields) context.fields[key] = value;
  if (options.backend.empty() || options.backend == context.backend) return context;
  const std::vector<std::string> names = BackendNames();
  if (std::find(names.begin(), names.end(), options.backend) == names.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown backend '", options.backend, "': expected one of ", absl::StrJoin(names, ", ")));
  }
  context.backend = options.backend;
  return context;
}

absl::StatusOr<std::unique_ptr<Client>> Client::Create(const ClientOptions& options) {
  DLP_ASSIGN_OR_RETURN(Context context, ResolveContext(options));
  DLP_ASSIGN_OR_RETURN(std::unique_ptr<Backend> backend, CreateBackend(context));
  return std::make_unique<Client>(std::move(context), std::move(backend));
}

Client::Client(Context context, std::unique_ptr<Backend> backend)
    : context_(std::move(context)), backend_(std::move(backend)) {}

absl::StatusOr<Job> Client::Submit(const JobSpec& spec) {
  DLP_RETURN_IF_ERROR(ValidateJobSpec(spec));
  return backend_->Submit(spec);
}

absl::StatusOr<Job> Client::Get(std::string_view id) { return backend_->Get(id); }

absl::StatusOr<std::vector<Job>> Client::List(const ListFilter& filter) {
  return backend_->List(filter);
}

absl::StatusOr<Job> Client::Cancel(std::string_view id) { return backend_->Cancel(id); }
absl::StatusOr<Job> Client::Delete(std::string_view id, bool force) {
  DLP_ASSIGN_OR_RETURN(JobHistory * history, internal::Offered(*backend_, backend_->history()));
  return history->Delete(id, force);
}

absl::StatusOr<Job> Client::Wait(std::string_view id, const WaitOptions& options) {
  const absl::Time deadline = absl::Now() + options.timeout;
  absl::Duration interval = options.on_update ? kProgressInterval : kQuietInterval;
  if (options.cancelled) interval = std::min(interval, kCancelInterval);
  auto cancelled = [&] { return options.cancelled && options.cancelled(); };
  auto interrupted = [&] {
    return absl::CancelledError(absl::StrCat("interrupted while waiting for job ", std::string(id),
                                             "; the job keeps running"));
  };
  while (true) {
    if (cancelled()) return interrupted();
    const absl::Duration left = std::max(deadline - absl::Now(), absl::ZeroDuration());
    absl::StatusOr<Job> job = backend_->Wait(id, std::min(left, interval));
    // Cancelling (Ctrl-C) may have broken the request itself (EINTR).
    if (cancelled()) return interrupted();
    if (!job.ok()) return job.status();
    if (options.on_update) options.on_update(*job);
    if (IsTerminal(job->state)) return job;
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat("timed out waiting for job ", std::string(id),
                                                      ": still ",
                                                      std::string(JobStateName(job->state))));
    }
  }
}

absl::Status Client::Logs(std::string_view id, const LogOptions& options, const LogSink& sink) {
  return backend_->Logs(id, options, sink);
}

absl::StatusOr<std::vector<Event>> Client::Events(std::string_view id) {
  return backend_->Events(id);
}

absl::StatusOr<JobExplanation> Client::Why(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(Scheduler * scheduler, internal::Offered(*backend_, backend_->scheduler()));
  return scheduler->Why(id);
}

absl::StatusOr<std::string> Client::Render(const JobSpec& spec) {
  DLP_RETURN_IF_ERROR(ValidateJobSpec(spec));
  return backend_->Render(spec);
}

}  // namespace dlp
