#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "comm/transports/shm_link.h"
#include "common/socket.h"

namespace dlp::runtime {

struct ShmSegment::Header {
  uint64_t magic;
  int32_t owner_rank;
  int32_t owner_pid;
  uint64_t capacity;
  std::atomic<uint32_t> gone;
  alignas(64) Doorbell bell;
  alignas(64) std::atomic<uint64_t> write_pos;  // advanced by the previous rank
  alignas(64) std::atomic<uint64_t> read_pos;   // advanced by the owner
};

namespace {

constexpr uint64_t kMagic = 0x646c702d73686d31;  // "dlp-shm1"
constexpr size_t kHeaderBytes = 4096;

// kill(pid, 0) succeeds on a zombie, so look at /proc for the state as well.
bool ProcessAlive(int pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');
  if (paren == std::string::npos || paren + 2 >= text.size()) return true;  // no /proc: trust kill
  char state = text[paren + 2];
  return state != 'Z' && state != 'X';
}

}  // namespace

std::string NewShmName(int rank) {
  // 128 random bits: another user cannot create the name first (O_EXCL would
  // then fail the job) nor find it before it is listed in /dev/shm.
  std::random_device rd;
  return absl::StrFormat("/dlp-%d-%d-%08x%08x%08x%08x", getpid(), rank, rd(), rd(), rd(), rd());
}

absl::StatusOr<std::shared_ptr<ShmSegment>> ShmSegment::Create(const std::string& name, int rank,
                                                               size_t data_bytes) {
  int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoStatus(absl::StrCat("shm_open ", name), errno);
  Fd owned(fd);
  size_t size = kHeaderBytes + data_bytes;
  if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
    shm_unlink(name.c_str());
    return ErrnoStatus(absl::StrCat("ftruncate ", name), errno);
  }
  // Reserve the pages now: a full /dev/shm (containers default to 64 MiB)
  // is then an error here rather than a SIGBUS in the middle of a collective.
  if (int rc = posix_fallocate(fd, 0, static_cast<off_t>(size)); rc != 0) {
    shm_unlink(name.c_str());
    return ErrnoStatus(absl::StrCat("reserving ", size, " bytes of shared memory (/dev/shm) for ",
                                    name),
                       rc);
  }
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    shm_unlink(name.c_str());
    return ErrnoStatus(absl::StrCat("mmap ", name), errno);
  }
  Header* h = new (p) Header();
  h->owner_rank = rank;
  h->owner_pid = getpid();
  h->capacity = data_bytes;
  std::atomic_thread_fence(std::memory_order_release);
  h->magic = kMagic;
  return std::shared_ptr<ShmSegment>(new ShmSegment(name, h, size, /*owner=*/true));
}

absl::StatusOr<std::shared_ptr<ShmSegment>> ShmSegment::Open(const std::string& name, int rank,
                                                             size_t data_bytes) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    return ErrnoStatus(absl::StrCat("rank ", rank, ": cannot open shared memory ", name,
                                    " (is it on another host? set DLP_HOST_ID)"),
                       errno);
  }
  Fd owned(fd);
  // Only a segment of this user's that no one else may open is a rank's: one
  // that another user put under the name is refused before it is mapped.
  struct stat st {};
  if (fstat(fd, &st) != 0) return ErrnoStatus(absl::StrCat("fstat ", name), errno);
  if (st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
    return absl::PermissionDeniedError(absl::StrCat(
        "shared memory ", name, " is not rank ", rank, "'s: owner uid ", st.st_uid, ", mode ",
        absl::StrFormat("%04o", st.st_mode & 07777)));
  }
  size_t size = kHeaderBytes + data_bytes;
  if (static_cast<size_t>(st.st_size) < size) {
    return absl::FailedPreconditionError(
        absl::StrCat("shared memory ", name, " does not belong to rank ", rank));
  }
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return ErrnoStatus(absl::StrCat("mmap ", name), errno);
  Header* h = static_cast<Header*>(p);
  if (h->magic != kMagic || h->owner_rank != rank || h->capacity != data_bytes) {
    munmap(p, size);
    return absl::FailedPreconditionError(
        absl::StrCat("shared memory ", name, " does not belong to rank ", rank));
  }
  return std::shared_ptr<ShmSegment>(new ShmSegment(name, h, size, /*owner=*/false));
}

ShmSegment::~ShmSegment() {
  if (owner_) {
    MarkGone();
    Unlink();
  }
  munmap(header_, size_);
}

void ShmSegment::Unlink() {
  if (owner_ && !unlinked_) shm_unlink(name_.c_str());
  unlinked_ = true;
}

void ShmSegment::MarkGone() {
  header_->gone.store(1, std::memory_order_seq_cst);
  header_->bell.Ring();
}

absl::Status ShmSegment::CheckOwner() const {
  if (header_->gone.load(std::memory_order_acquire) != 0) {
    return absl::UnavailableError(absl::StrCat("rank ", header_->owner_rank, " left the communicator"));
  }
  if (!ProcessAlive(header_->owner_pid)) {
    return absl::UnavailableError(
        absl::StrCat("rank ", header_->owner_rank, " (pid ", header_->owner_pid, ") died"));
  }
  return absl::OkStatus();
}

int ShmSegment::owner_rank() const { return header_->owner_rank; }
char* ShmSegment::ring() const { return reinterpret_cast<char*>(header_) + kHeaderBytes; }
size_t ShmSegment::capacity() const { return header_->capacity; }

void ShmSegment::TouchPages() const {
  const long page = sysconf(_SC_PAGESIZE);
  const size_t step = page > 0 ? static_cast<size_t>(page) : 4096;
  const volatile char* bytes = reinterpret_cast<const char*>(header_);
  for (size_t at = 0; at < size_; at += step) (void)bytes[at];
}
Doorbell* ShmSegment::bell() const { return &header_->bell; }
std::atomic<uint64_t>& ShmSegment::write_pos() const { return header_->write_pos; }
std::atomic<uint64_t>& ShmSegment::read_pos() const { return header_->read_pos; }

}  // namespace dlp::runtime
