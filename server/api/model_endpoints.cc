// The model registry's endpoints (docs/api.md): POST /v1/models registers a
// version, GET /v1/models lists, GET /v1/models/REF shows one version
// ("NAME", "NAME:3", "NAME@staging"), GET /v1/models/REF/file streams its file,
// POST /v1/models/NAME/aliases points an alias at a version. The owner
// addresses a tenant's models with ?tenant=NAME.
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "dlp/artifacts.h"
#include "server/api/routes.h"

namespace dlp::server {
namespace {

void SendModel(httplib::Response& res, int status, const absl::StatusOr<ModelVersion>& model) {
  if (!model.ok()) return SendError(res, model.status());
  res.status = status;
  res.set_content(ModelVersionToJson(*model) + "\n", kJson);
}

// The string member `key` of a JSON body ("" when missing).
absl::StatusOr<std::string> Member(const nlohmann::json& body, const char* key) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return std::string();
  if (!it->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(key, ": expected a string"));
  }
  return it->get<std::string>();
}

absl::StatusOr<nlohmann::json> ParseBody(const std::string& text) {
  nlohmann::json body = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) return absl::InvalidArgumentError("expected a JSON object");
  return body;
}

}  // namespace

void InstallModelRoutes(httplib::Server& server, const ApiContext& context) {
  const ApiContext* ctx = &context;
  if (ctx->models == nullptr) return;
  ModelRegistry* models = ctx->models;
  server.Post("/v1/models", [ctx, models](const httplib::Request& req, httplib::Response& res) {
    absl::StatusOr<nlohmann::json> body = ParseBody(req.body);
    if (!body.ok()) return SendError(res, body.status());
    ModelRegistration reg;
    for (auto [key, out] : {std::pair{"name", &reg.name}, std::pair{"job", &reg.job},
                            std::pair{"path", &reg.path}, std::pair{"alias", &reg.alias}}) {
      absl::StatusOr<std::string> value = Member(*body, key);
      if (!value.ok()) return SendError(res, value.status());
      *out = std::move(*value);
    }
    SendModel(res, 201, models->Register(reg, TenantOf(*ctx, req)));
  });
  server.Get("/v1/models", [ctx, models](const httplib::Request& req, httplib::Response& res) {
    absl::StatusOr<std::vector<ModelVersion>> list = models->List(TenantOf(*ctx, req));
    if (!list.ok()) return SendError(res, list.status());
    res.status = 200;
    res.set_content(ModelVersionsToJson(*list) + "\n", kJson);
  });
  server.Get(
      R"(/v1/models/([^/]+))", [ctx, models](const httplib::Request& req, httplib::Response& res) {
        SendModel(res, 200,
                  models->Get(req.matches[1], req.get_param_value("tenant"), TenantOf(*ctx, req)));
      });
  server.Get(R"(/v1/models/([^/]+)/file)", [ctx, models](const httplib::Request& req,
                                                         httplib::Response& res) {
    const std::string tenant = TenantOf(*ctx, req);
    absl::StatusOr<contract::OpenedArtifact> file =
        models->OpenFile(req.matches[1], req.get_param_value("tenant"), tenant);
    if (!file.ok()) return SendError(res, file.status());
    absl::StatusOr<LongRequests::Slot> slot = ctx->long_requests->Acquire(tenant, "download");
    if (!slot.ok()) return SendError(res, slot.status());
    ServeFile(res, std::move(file->fd), file->size, std::move(*slot));
  });
  server.Post(R"(/v1/models/([^/]+)/aliases)",
              [ctx, models](const httplib::Request& req, httplib::Response& res) {
                absl::StatusOr<nlohmann::json> body = ParseBody(req.body);
                if (!body.ok()) return SendError(res, body.status());
                absl::StatusOr<std::string> alias = Member(*body, "alias");
                if (!alias.ok()) return SendError(res, alias.status());
                auto version = body->find("version");
                if (version == body->end() || !version->is_number_integer()) {
                  return SendError(res, absl::InvalidArgumentError("version: expected an integer"));
                }
                SendModel(res, 200,
                          models->SetAlias(req.matches[1], *alias, version->get<int>(),
                                           req.get_param_value("tenant"), TenantOf(*ctx, req)));
              });
}

}  // namespace dlp::server
