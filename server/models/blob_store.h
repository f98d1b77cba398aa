// A content-addressed store of files under dlpd's state folder: each blob is
// named by its SHA-256 (blobs/sha256/ab/abcdef...), written once and never
// changed, so the same file registered twice (two versions, two tenants) is
// kept once. A blob is written to a temporary file beside its place, synced,
// then linked into place (atomic: a crash leaves a stray temporary file, never
// a half blob). Thread-safe: concurrent puts of the same content both succeed.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "contract/output_folder.h"

namespace dlp::server {

struct Blob {
  std::string sha256;
  int64_t size = 0;
  bool existed = false;  // the content was already stored
};

class BlobStore {
 public:
  // `dir`: the store's root (created on first put).
  explicit BlobStore(std::string dir) : dir_(std::move(dir)) {}

  // Copies what remains to read of `fd` into the store. Unavailable when the
  // store cannot be written.
  absl::StatusOr<Blob> Put(int fd);
  // The blob, open for reading. NotFound for a digest not stored (or not a
  // digest).
  absl::StatusOr<contract::OpenedArtifact> Open(const std::string& sha256) const;
  // Where the blob of `sha256` lives (whether or not it is stored).
  std::string PathOf(const std::string& sha256) const;

 private:
  std::string dir_;
};

}  // namespace dlp::server
