// The resolver of paths below a job's folder (runtime/src/contract/
// tenant_files.h), against a folder laid out as a hostile job would: links out
// of it at every level, a link to a magic link, a FIFO. Any path either fails
// or opens something inside the folder, and both resolvers (openat2 and the
// component walk) agree on which.
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "contract/tenant_files.h"

namespace {

struct Tree {
  std::string root;  // the job's folder, resolved
  int fd = -1;
};

void Touch(const std::string& path, const char* text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd >= 0) {
    (void)!write(fd, text, strlen(text));
    close(fd);
  }
}

const Tree& TheTree() {
  static const Tree tree = [] {
    char dir[] = "/tmp/fuzz_tenant_path.XXXXXX";
    if (mkdtemp(dir) == nullptr) abort();
    const std::string base = dir;
    Touch(base + "/secret", "secret");
    mkdir((base + "/job").c_str(), 0700);
    mkdir((base + "/job/a").c_str(), 0700);
    mkdir((base + "/job/a/b").c_str(), 0700);
    Touch(base + "/job/a/b/file", "inside");
    Touch(base + "/job/x", "inside");
    (void)!symlink("/", (base + "/job/root").c_str());
    (void)!symlink("../../secret", (base + "/job/a/up").c_str());
    (void)!symlink(base.c_str(), (base + "/job/a/b/abs").c_str());
    (void)!symlink("/proc/self/cwd", (base + "/job/magic").c_str());
    (void)!symlink("x", (base + "/job/rel").c_str());
    mkfifo((base + "/job/fifo").c_str(), 0600);
    Tree t;
    char resolved[PATH_MAX];
    if (realpath((base + "/job").c_str(), resolved) == nullptr) abort();
    t.root = resolved;
    t.fd = open(t.root.c_str(), O_RDONLY | O_DIRECTORY);
    return t;
  }();
  return tree;
}

// Where `fd` is, by the kernel's own account.
std::string Where(int fd) {
  char link[64], target[PATH_MAX];
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, target, sizeof(target) - 1);
  return n > 0 ? std::string(target, static_cast<size_t>(n)) : "";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Tree& tree = TheTree();
  const std::string path(reinterpret_cast<const char*>(data), size);
  namespace c = dlp::contract;
  for (int flags : {O_RDONLY, O_RDONLY | O_DIRECTORY, O_PATH}) {
    absl::StatusOr<c::OwnedFd> beneath = c::OpenBeneath(tree.fd, path, flags);
    absl::StatusOr<c::OwnedFd> walking = c::OpenBeneathWalking(tree.fd, path, flags);
    if (beneath.ok() != walking.ok()) __builtin_trap();
    if (!beneath.ok()) continue;
    for (int fd : {beneath->get(), walking->get()}) {
      const std::string at = Where(fd);
      if (at != tree.root && at.rfind(tree.root + "/", 0) != 0) __builtin_trap();
    }
  }
  return 0;
}
