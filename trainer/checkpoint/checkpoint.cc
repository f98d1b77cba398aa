// File layout: the line "fmnist-checkpoint 2", a one-line JSON header (model,
// the position: epoch, samples into the next one, steps, the partial epoch's
// loss, RNG state and global batch; parameter count, FNV-1a hash of the
// payload), then the payload: parameters and momentum as raw little-endian
// float32. Version 1 had no position beyond the epoch and the RNG state.
#include "checkpoint/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace dlp::fmnist {
namespace {

constexpr char kMagic[] = "fmnist-checkpoint 2";
constexpr char kMagicVersion1[] = "fmnist-checkpoint 1";

uint64_t Fnv1a(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

absl::Status Errno(const std::string& what, const std::string& path) {
  return absl::InternalError(absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

absl::Status WriteAllAndSync(const std::string& path, const std::string& data) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot create", path);
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const absl::Status status = Errno("cannot write", path);
      ::close(fd);
      return status;
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const absl::Status status = Errno("cannot fsync", path);
    ::close(fd);
    return status;
  }
  if (::close(fd) != 0) return Errno("cannot close", path);
  return absl::OkStatus();
}

std::string Payload(const Checkpoint& c) {
  std::string payload(reinterpret_cast<const char*>(c.params.data()), c.params.size() * 4);
  payload.append(reinterpret_cast<const char*>(c.velocity.data()), c.velocity.size() * 4);
  return payload;
}

}  // namespace

std::string CheckpointPath(const std::string& dir) { return dir + "/checkpoint.bin"; }

absl::Status SaveCheckpoint(const std::string& dir, const Checkpoint& checkpoint) {
  return SaveCheckpointAs(dir, "checkpoint.bin", checkpoint);
}

absl::Status SaveCheckpointAs(const std::string& dir, const std::string& name,
                              const Checkpoint& checkpoint) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot create ", dir, ": ", ec.message()));
  const std::string payload = Payload(checkpoint);
  const Position& at = checkpoint.at;
  nlohmann::json header = {{"model", checkpoint.model},
                           {"epoch", at.epoch},
                           {"epoch_samples", at.epoch_samples},
                           {"step", at.step},
                           {"epoch_loss", at.epoch_loss},
                           {"rng_state", absl::StrCat(at.rng_state)},
                           {"batch", at.batch},
                           {"parameters", checkpoint.params.size()},
                           {"fnv1a", absl::StrCat(Fnv1a(payload))}};
  const std::string path = dir + "/" + name;
  const std::string tmp = path + ".tmp";
  DLP_RETURN_IF_ERROR(
      WriteAllAndSync(tmp, absl::StrCat(kMagic, "\n", header.dump(), "\n", payload)));
  if (::rename(tmp.c_str(), path.c_str()) != 0) return Errno("cannot rename to", path);
  // The rename itself is durable only once the folder is synced.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return Errno("cannot open", dir);
  const int rc = ::fsync(dfd);
  ::close(dfd);
  if (rc != 0) return Errno("cannot fsync", dir);
  return absl::OkStatus();
}

absl::StatusOr<Checkpoint> LoadCheckpoint(const std::string& dir) {
  const std::string path = CheckpointPath(dir);
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("no checkpoint at ", path));
  std::string magic, header_line;
  std::getline(in, magic);
  std::getline(in, header_line);
  std::stringstream rest;
  rest << in.rdbuf();
  const std::string payload = rest.str();
  if (magic != kMagic && magic != kMagicVersion1) {
    return absl::DataLossError(absl::StrCat(path, ": not a checkpoint"));
  }

  Checkpoint c;
  size_t count = 0;
  std::string hash;
  std::string rng;
  try {
    const auto header = nlohmann::json::parse(header_line);
    c.model = header.at("model").get<std::string>();
    Position& at = c.at;
    at.epoch = header.at("epoch").get<int64_t>();
    rng = header.at("rng_state").get<std::string>();
    if (magic == kMagic) {
      at.epoch_samples = header.at("epoch_samples").get<int64_t>();
      at.step = header.at("step").get<int64_t>();
      at.epoch_loss = header.at("epoch_loss").get<double>();
      at.batch = header.at("batch").get<int64_t>();
    }
    count = header.at("parameters").get<size_t>();
    hash = header.at("fnv1a").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    return absl::DataLossError(absl::StrCat(path, ": bad header: ", e.what()));
  }
  if (c.at.epoch < 0 || c.at.epoch_samples < 0 || c.at.step < 0 || c.at.batch < 0) {
    return absl::DataLossError(absl::StrCat(path, ": a negative epoch, position or batch"));
  }
  if (!absl::SimpleAtoi(rng, &c.at.rng_state)) {
    return absl::DataLossError(absl::StrCat(path, ": bad rng_state \"", rng, "\""));
  }
  if (payload.size() != count * 8 || absl::StrCat(Fnv1a(payload)) != hash) {
    return absl::DataLossError(absl::StrCat(path, ": payload is truncated or corrupt"));
  }
  c.params.resize(count);
  c.velocity.resize(count);
  std::memcpy(c.params.data(), payload.data(), count * 4);
  std::memcpy(c.velocity.data(), payload.data() + count * 4, count * 4);
  return c;
}

}  // namespace dlp::fmnist
