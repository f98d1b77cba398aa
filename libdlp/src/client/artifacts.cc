// Client's artifact and model functions: the backend lists and streams, the
// client writes each file through VerifiedFile so that what lands on disk is
// what the server listed.
#include <memory>

#include "absl/strings/str_cat.h"
#include "artifacts/verified_file.h"
#include "client/capability.h"
#include "dlp/client.h"
#include "dlp/status.h"

namespace dlp {
namespace {

using internal::Offered;
using internal::VerifiedFile;

// Streams through `read` into `dir`/`relative`, checked against `expected`.
absl::StatusOr<std::string> Download(const std::string& dir, const std::string& relative,
                                     const Artifact& expected,
                                     const std::function<absl::Status(const ByteSink&)>& read) {
  DLP_ASSIGN_OR_RETURN(std::unique_ptr<VerifiedFile> file,
                       VerifiedFile::Create(dir, relative, expected.sha256, expected.size));
  absl::Status written;
  DLP_RETURN_IF_ERROR(read([&](std::string_view data) {
    written = file->Append(data);
    return written.ok();
  }));
  DLP_RETURN_IF_ERROR(written);
  return file->Finish();
}

}  // namespace

std::string ModelVersion::Ref() const { return absl::StrCat(name, ":", version); }

absl::StatusOr<std::vector<Artifact>> Client::ListArtifacts(std::string_view id,
                                                            std::string_view path) {
  DLP_ASSIGN_OR_RETURN(ArtifactStore * store, Offered(*backend_, backend_->artifacts()));
  return store->Artifacts(id, path);
}

absl::StatusOr<std::vector<Artifact>> Client::DownloadArtifacts(std::string_view id,
                                                                std::string_view path,
                                                                const std::string& dir) {
  DLP_ASSIGN_OR_RETURN(ArtifactStore * store, Offered(*backend_, backend_->artifacts()));
  DLP_ASSIGN_OR_RETURN(std::vector<Artifact> listed, store->Artifacts(id, path));
  if (listed.empty()) {
    return absl::NotFoundError(
        absl::StrCat("job ", std::string(id), " has no artifacts",
                     path.empty() ? "" : absl::StrCat(" under \"", std::string(path), "\"")));
  }
  std::vector<Artifact> written;
  for (const Artifact& a : listed) {
    DLP_ASSIGN_OR_RETURN(std::string target, Download(dir, a.path, a, [&](const ByteSink& sink) {
                           return store->ReadArtifact(id, a.path, sink);
                         }));
    Artifact w = a;
    w.path = std::move(target);
    written.push_back(std::move(w));
  }
  return written;
}

absl::StatusOr<ModelVersion> Client::RegisterModel(const ModelRegistration& reg) {
  DLP_ASSIGN_OR_RETURN(ModelRegistry * models, Offered(*backend_, backend_->models()));
  return models->RegisterModel(reg);
}

absl::StatusOr<std::vector<ModelVersion>> Client::ListModels() {
  DLP_ASSIGN_OR_RETURN(ModelRegistry * models, Offered(*backend_, backend_->models()));
  return models->ListModels();
}

absl::StatusOr<ModelVersion> Client::GetModel(std::string_view ref) {
  DLP_ASSIGN_OR_RETURN(ModelRegistry * models, Offered(*backend_, backend_->models()));
  return models->GetModel(ref);
}

absl::StatusOr<ModelVersion> Client::DownloadModel(std::string_view ref, const std::string& dir) {
  DLP_ASSIGN_OR_RETURN(ModelRegistry * models, Offered(*backend_, backend_->models()));
  DLP_ASSIGN_OR_RETURN(ModelVersion model, models->GetModel(ref));
  // The exact version, so an alias moved meanwhile cannot mix two files.
  // (The owner sees a tenant's model as "TENANT/NAME".)
  const std::string exact = model.Ref();
  Artifact expected{model.file, model.size, model.sha256, model.created};
  DLP_ASSIGN_OR_RETURN(model.file, Download(dir, model.file, expected, [&](const ByteSink& sink) {
                         return models->ReadModel(exact, sink);
                       }));
  return model;
}

absl::StatusOr<ModelVersion> Client::SetModelAlias(std::string_view name, std::string_view alias,
                                                   int version) {
  DLP_ASSIGN_OR_RETURN(ModelRegistry * models, Offered(*backend_, backend_->models()));
  return models->SetModelAlias(name, alias, version);
}

}  // namespace dlp
