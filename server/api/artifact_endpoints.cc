// GET /v1/jobs/ID/artifacts (the listing, with SHA-256) and
// GET /v1/jobs/ID/artifacts/PATH (one file's bytes, streamed with its
// Content-Length). Tenant-scoped as every job endpoint; files are opened
// through OpenArtifact, below the output folder as the job's TenantFolder
// opened it: never a link, never out of it, only the job user's files. A download holds
// a worker thread, so it takes a LongRequests slot; a client that stops
// reading is cut off by the gate's write stall limit.
#include <unistd.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "contract/output_folder.h"
#include "dlp/artifacts.h"
#include "server/api/routes.h"

namespace dlp::server {
namespace {

struct Download {
  contract::OpenedArtifact file;
  LongRequests::Slot slot;
};

}  // namespace

void InstallArtifactRoutes(httplib::Server& server, const ApiContext& context) {
  const ApiContext* ctx = &context;
  server.Get(R"(/v1/jobs/([^/]+)/artifacts)",
             [ctx](const httplib::Request& req, httplib::Response& res) {
               absl::StatusOr<std::optional<contract::TenantFolder>> output =
                   ctx->controller->OutputFolder(req.matches[1], TenantOf(*ctx, req));
               if (!output.ok()) return SendError(res, output.status());
               absl::StatusOr<std::vector<contract::OutputFile>> listed =
                   std::vector<contract::OutputFile>{};
               if (*output) {  // none before the job starts
                 listed = contract::ListArtifacts(**output, req.get_param_value("path"),
                                                  /*digests=*/true);
               }
               if (!listed.ok()) return SendError(res, listed.status());
               std::vector<Artifact> artifacts;
               for (contract::OutputFile& f : *listed) {
                 artifacts.push_back({std::move(f.path), f.size, std::move(f.sha256), f.mtime});
               }
               res.status = 200;
               res.set_content(ArtifactsToJson(artifacts) + "\n", "application/json");
             });
  server.Get(R"(/v1/jobs/([^/]+)/artifacts/(.+))", [ctx](const httplib::Request& req,
                                                         httplib::Response& res) {
    const std::string tenant = TenantOf(*ctx, req);
    absl::StatusOr<std::optional<contract::TenantFolder>> output =
        ctx->controller->OutputFolder(req.matches[1], tenant);
    if (!output.ok()) return SendError(res, output.status());
    const std::string path = req.matches[2];
    absl::StatusOr<contract::OpenedArtifact> file =
        *output ? contract::OpenArtifact(**output, path)
                : absl::NotFoundError(absl::StrCat("no artifact \"", path,
                                                   "\": the job has not started"));
    if (!file.ok()) return SendError(res, file.status());
    absl::StatusOr<LongRequests::Slot> slot = ctx->long_requests->Acquire(tenant, "download");
    if (!slot.ok()) return SendError(res, slot.status());
    ServeFile(res, std::move(file->fd), file->size, std::move(*slot));
  });
}

void ServeFile(httplib::Response& res, contract::OwnedFd fd, int64_t size,
               LongRequests::Slot slot) {
  auto held = std::make_shared<std::pair<contract::OwnedFd, LongRequests::Slot>>(std::move(fd),
                                                                                 std::move(slot));
  res.status = 200;
  // The length is the file's when it was opened: a file that grows is cut
  // there, one that shrinks ends the response early (the client's size and
  // SHA-256 checks catch both).
  res.set_content_provider(static_cast<size_t>(size), "application/octet-stream",
                           [held](size_t offset, size_t length, httplib::DataSink& sink) {
                             char buf[1 << 16];
                             const ssize_t n =
                                 pread(held->first.get(), buf, std::min(length, sizeof(buf)),
                                       static_cast<off_t>(offset));
                             if (n <= 0) return false;
                             return sink.write(buf, static_cast<size_t>(n));
                           });
}

}  // namespace dlp::server
