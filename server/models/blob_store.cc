#include "server/models/blob_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "contract/sha256.h"
#include "dlp/status.h"

namespace dlp::server {
namespace {

absl::Status Unwritable(const std::string& what) {
  return absl::UnavailableError(
      absl::StrCat("cannot write the model store (", what, "): ", std::strerror(errno)));
}

}  // namespace

std::string BlobStore::PathOf(const std::string& sha256) const {
  return absl::StrCat(dir_, "/sha256/", sha256.substr(0, 2), "/", sha256);
}

absl::StatusOr<Blob> BlobStore::Put(int fd) {
  std::error_code ec;
  std::filesystem::create_directories(dir_ + "/tmp", ec);
  if (ec) return absl::UnavailableError(absl::StrCat("cannot create ", dir_, ": ", ec.message()));
  std::string temp = dir_ + "/tmp/blob-XXXXXX";
  contract::OwnedFd out(mkostemp(temp.data(), O_CLOEXEC));
  if (out.get() < 0) return Unwritable(temp);
  auto discard = [&temp] { unlink(temp.c_str()); };
  contract::Sha256 sha;
  Blob blob;
  char buf[1 << 16];
  while (true) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      discard();
      return absl::InternalError(absl::StrCat("reading the file: ", std::strerror(errno)));
    }
    if (n == 0) break;
    sha.Update(std::string_view(buf, static_cast<size_t>(n)));
    blob.size += n;
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = write(out.get(), buf + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        discard();
        return Unwritable(temp);
      }
      done += w;
    }
  }
  blob.sha256 = sha.HexDigest();
  const std::string target = PathOf(blob.sha256);
  if (fchmod(out.get(), 0600) != 0 || fsync(out.get()) != 0) {
    discard();
    return Unwritable(temp);
  }
  std::filesystem::create_directories(std::filesystem::path(target).parent_path(), ec);
  // link() refuses to replace: the first copy of a content stays the one kept.
  if (link(temp.c_str(), target.c_str()) != 0) {
    if (errno != EEXIST) {
      discard();
      return Unwritable(target);
    }
    blob.existed = true;
  }
  discard();
  return blob;
}

absl::StatusOr<contract::OpenedArtifact> BlobStore::Open(const std::string& sha256) const {
  if (!contract::IsSha256Hex(sha256)) {
    return absl::NotFoundError(absl::StrCat("no blob \"", sha256, "\""));
  }
  DLP_ASSIGN_OR_RETURN(contract::TenantFolder blobs, contract::OpenOwnFolder(dir_));
  return contract::OpenArtifact(blobs,
                                absl::StrCat("sha256/", sha256.substr(0, 2), "/", sha256));
}

}  // namespace dlp::server
