// A ring's segment is mapped page by page on first use unless touched: after
// TouchPages() every page of it is in this process's page tables, so the first
// megabyte of a ring's traffic pays no page faults.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>

#include "comm/transports/shm_link.h"
#include "gtest/gtest.h"

namespace dlp::runtime {
namespace {

// How many pages of [data, data + bytes) are present in this process's page
// tables (/proc/self/pagemap: one 64-bit entry a page, bit 63 "present").
size_t PresentPages(const char* data, size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0);
  size_t present = 0;
  for (size_t at = 0; at < bytes; at += page) {
    uint64_t entry = 0;
    const off_t where =
        static_cast<off_t>((reinterpret_cast<uintptr_t>(data + at) / page) * sizeof(entry));
    EXPECT_EQ(pread(fd, &entry, sizeof(entry), where), static_cast<ssize_t>(sizeof(entry)));
    present += (entry >> 63) & 1;
  }
  close(fd);
  return present;
}

TEST(ShmSegment, TouchPagesMapsEveryPageOfAPeersRing) {
  auto own = ShmSegment::Create(NewShmName(0), 0);
  ASSERT_TRUE(own.ok()) << own.status();
  // A second mapping, as the rank that writes into this ring has.
  auto peer = ShmSegment::Open((*own)->name(), 0);
  ASSERT_TRUE(peer.ok()) << peer.status();
  const size_t pages = ShmSegment::kRingBytes / static_cast<size_t>(sysconf(_SC_PAGESIZE));

  EXPECT_LT(PresentPages((*peer)->ring(), ShmSegment::kRingBytes), pages)
      << "a fresh mapping was already mapped whole: this test could not tell";
  (*peer)->TouchPages();
  EXPECT_EQ(PresentPages((*peer)->ring(), ShmSegment::kRingBytes), pages);
}

TEST(ShmSegment, NamesAreUnguessable) {
  // /dlp-<pid>-<rank>-<128 random bits>: two names for the same rank differ.
  const std::string a = NewShmName(3), b = NewShmName(3);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.size() - a.rfind('-') - 1, 32u) << a;
}

TEST(ShmSegment, ASegmentOthersMayOpenIsNotMapped) {
  // As if another user had made it: open to the group and others.
  auto own = ShmSegment::Create(NewShmName(0), 0);
  ASSERT_TRUE(own.ok()) << own.status();
  const int fd = shm_open((*own)->name().c_str(), O_RDWR | O_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(fchmod(fd, 0666), 0);
  close(fd);
  auto peer = ShmSegment::Open((*own)->name(), 0);
  EXPECT_TRUE(absl::IsPermissionDenied(peer.status())) << peer.status();
}

TEST(ShmSegment, ASegmentShorterThanARingIsNotMapped) {
  const std::string name = NewShmName(0);
  const int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 4096), 0);
  close(fd);
  auto peer = ShmSegment::Open(name, 0);
  shm_unlink(name.c_str());
  EXPECT_TRUE(absl::IsFailedPrecondition(peer.status())) << peer.status();
}

}  // namespace
}  // namespace dlp::runtime
