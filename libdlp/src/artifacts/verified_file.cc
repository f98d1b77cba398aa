#include "artifacts/verified_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "dlp/status.h"

namespace dlp::internal {

absl::StatusOr<std::unique_ptr<VerifiedFile>> VerifiedFile::Create(const std::string& dir,
                                                                   std::string_view relative,
                                                                   std::string expected_sha256,
                                                                   int64_t expected_size) {
  DLP_RETURN_IF_ERROR(contract::ValidateArtifactPath(relative));
  std::unique_ptr<VerifiedFile> f(new VerifiedFile());
  const std::filesystem::path target = std::filesystem::path(dir) / std::string(relative);
  std::error_code ec;
  std::filesystem::create_directories(target.parent_path(), ec);
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create ", target.parent_path().string(), ": ", ec.message()));
  }
  f->target_ = target.string();
  f->part_ =
      (target.parent_path() / absl::StrCat(".", target.filename().string(), ".part")).string();
  f->expected_sha256_ = std::move(expected_sha256);
  f->expected_size_ = expected_size;
  f->fd_ = contract::OwnedFd(open(f->part_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (f->fd_.get() < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write ", f->part_, ": ", std::strerror(errno)));
  }
  return f;
}

VerifiedFile::~VerifiedFile() {
  if (!done_ && !part_.empty()) unlink(part_.c_str());
}

absl::Status VerifiedFile::Append(std::string_view data) {
  sha_.Update(data);
  written_ += static_cast<int64_t>(data.size());
  while (!data.empty()) {
    const ssize_t n = write(fd_.get(), data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::UnavailableError(absl::StrCat("writing ", part_, ": ", std::strerror(errno)));
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> VerifiedFile::Finish() {
  const std::string digest = sha_.HexDigest();
  if (written_ != expected_size_) {
    return absl::DataLossError(absl::StrCat(target_, ": received ", written_, " bytes, expected ",
                                            expected_size_,
                                            " (the download was cut short or the "
                                            "file changed meanwhile)"));
  }
  if (digest != expected_sha256_) {
    return absl::DataLossError(absl::StrCat(target_, ": SHA-256 mismatch: received ", digest,
                                            ", expected ", expected_sha256_,
                                            " (corrupted in transit or changed meanwhile)"));
  }
  if (fsync(fd_.get()) != 0 || rename(part_.c_str(), target_.c_str()) != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot write ", target_, ": ", std::strerror(errno)));
  }
  done_ = true;
  return target_;
}

}  // namespace dlp::internal
