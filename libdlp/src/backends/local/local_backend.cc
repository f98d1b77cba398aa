// The local backend: the dlpd API of the user's own dlpd, found through the state
// folder and started on demand.
#include <mutex>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "backends/factories.h"
#include "backends/local/local_server_internal.h"
#include "backends/api/api_backend.h"
#include "dlp/status.h"

namespace dlp::internal {
namespace {

class LocalConnector : public ApiConnector {
 public:
  LocalConnector(LocalServerOptions options, bool autostart)
      : options_(std::move(options)), autostart_(autostart) {}

  absl::StatusOr<std::shared_ptr<const HttpClient>> Connect(bool refresh) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (client_ != nullptr && !refresh) return client_;
    client_ = nullptr;
    absl::StatusOr<LocalConnection> connection;
    if (!refresh) {
      // Usually dlpd is up: skip the health request (one process per CLI command
      // would pay it every time). A failed connect comes back with refresh = true.
      connection = FindLocalServer(StateDirOf(options_));
      if (connection.ok()) {
        client_ = std::move(connection->client);
        return client_;
      }
    }
    if (autostart_) {
      connection = EnsureLocalServer(options_);
    } else {
      connection = ProbeLocalServer(StateDirOf(options_));
      if (absl::IsNotFound(connection.status())) {
        return absl::UnavailableError(absl::StrCat(
            "no dlpd is running for ", StateDirOf(options_),
            " (autostart is off in this context; run `dlp server start`)"));
      }
    }
    if (!connection.ok()) return connection.status();
    client_ = std::move(connection->client);
    return client_;
  }

 private:
  const LocalServerOptions options_;
  const bool autostart_;
  std::mutex mu_;
  std::shared_ptr<const HttpClient> client_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Backend>> CreateLocalBackend(const Context& context) {
  LocalServerOptions options;
  options.state_dir = context.Field("state-dir");
  options.dlpd_path = context.Field("dlpd");
  const std::string autostart = absl::AsciiStrToLower(context.Field("autostart", "true"));
  if (autostart != "true" && autostart != "false") {
    return absl::InvalidArgumentError(absl::StrCat(
        "context '", context.name, "': autostart: expected true or false, got '", autostart, "'"));
  }
  return std::make_unique<ApiBackend>(
      "local", std::make_unique<LocalConnector>(std::move(options), autostart == "true"));
}

}  // namespace dlp::internal
