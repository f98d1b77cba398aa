// The remote backend: the dlpd API of a shared server, with a tenant token.
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "backends/api/api_backend.h"
#include "backends/factories.h"
#include "config/paths.h"
#include "dlp/config.h"
#include "dlp/status.h"

namespace dlp::internal {
namespace {

class FixedConnector : public ApiConnector {
 public:
  explicit FixedConnector(HttpEndpoint endpoint)
      : client_(std::make_shared<const HttpClient>(std::move(endpoint))) {}
  absl::StatusOr<std::shared_ptr<const HttpClient>> Connect(bool) override { return client_; }

 private:
  std::shared_ptr<const HttpClient> client_;
};

bool IsTrue(std::string_view value) {
  const std::string lower = absl::AsciiStrToLower(std::string(value));
  return lower == "true" || lower == "yes" || lower == "1" || lower == "on";
}

}  // namespace

absl::StatusOr<std::unique_ptr<Backend>> CreateRemoteBackend(const Context& context) {
  HttpEndpoint endpoint;
  endpoint.url = context.Field("server");
  if (endpoint.url.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "context '", context.name, "': backend 'remote' needs 'server: https://HOST:PORT'"));
  }
  while (!endpoint.url.empty() && endpoint.url.back() == '/') endpoint.url.pop_back();
  DLP_RETURN_IF_ERROR(CheckServerTransport(context));
  endpoint.token = context.Field("token");
  if (const std::string file = context.Field("token-file"); !file.empty()) {
    auto token = ReadFile(ExpandUser(file));
    if (!token.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "context '", context.name, "': token-file: ", token.status().message()));
    }
    endpoint.token = std::string(absl::StripAsciiWhitespace(*token));
  }
  endpoint.ca_file = ExpandUser(context.Field("ca-file"));
  endpoint.insecure_skip_verify = IsTrue(context.Field("insecure-skip-tls-verify"));
  return std::make_unique<ApiBackend>("remote",
                                      std::make_unique<FixedConnector>(std::move(endpoint)));
}

}  // namespace dlp::internal
