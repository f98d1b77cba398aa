// dlp::Client: the entry point for programs that submit and watch jobs.
//
//   auto client = dlp::Client::Create();            // current context
//   auto spec = dlp::LoadJobSpec("job.yaml");
//   auto job = (*client)->Submit(*spec);
//   auto done = (*client)->Wait(job->id);
//
// A Client is thread-safe; it owns its Backend.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "dlp/backend.h"
#include "dlp/config.h"
#include "dlp/job.h"

namespace dlp {

struct ClientOptions {
  std::string context;      // empty: $DLP_CONTEXT, then the config's current-context
  std::string config_path;  // empty: $DLP_CONFIG, then ~/.config/dlp/config.yaml
};

struct WaitOptions {
  absl::Duration timeout = absl::InfiniteDuration();
  // Called whenever the job's state is re-read (for progress lines).
  std::function<void(const Job&)> on_update;
};

class Client {
 public:
  static absl::StatusOr<std::unique_ptr<Client>> Create(const ClientOptions& options = {});
  Client(Context context, std::unique_ptr<Backend> backend);

  const Context& context() const { return context_; }
  Backend& backend() { return *backend_; }

  absl::StatusOr<Job> Submit(const JobSpec& spec);
  absl::StatusOr<Job> Get(std::string_view id);
  absl::StatusOr<std::vector<Job>> List(const ListFilter& filter = {});
  absl::StatusOr<Job> Cancel(std::string_view id);
  // Until terminal; DeadlineExceeded when options.timeout passes first.
  absl::StatusOr<Job> Wait(std::string_view id, const WaitOptions& options = {});
  absl::Status Logs(std::string_view id, const LogOptions& options, const LogSink& sink);
  absl::StatusOr<std::vector<Event>> Events(std::string_view id);
  absl::StatusOr<std::string> Render(const JobSpec& spec);

 private:
  Context context_;
  std::unique_ptr<Backend> backend_;
};

}  // namespace dlp
