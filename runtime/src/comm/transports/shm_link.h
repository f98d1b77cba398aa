// Shared-memory links between ranks on one host. Each rank owns one POSIX shm
// segment: a header (its pid, a "gone" flag, its doorbell) and the ring buffer
// that its previous rank writes into. A rank maps the segments of its
// shared-memory neighbours: the next rank's to write data and ring its bell,
// the previous rank's to ring that rank's bell after draining data. Names are
// unlinked as soon as every neighbour has mapped them (and by the owner on
// destroy), so a crash leaves nothing behind in /dev/shm after setup.
#pragma once

#include <memory>
#include <string>

#include "comm/transports/link.h"

namespace dlp::runtime {

class ShmSegment {
 public:
  // The data bytes of a link's ring buffer (a power of two).
  static constexpr size_t kRingBytes = 1 << 20;
  // Creates and maps a new segment owned by this process, with `data_bytes`
  // after the header (a ring buffer, or the slots of shm_group.h).
  static absl::StatusOr<std::shared_ptr<ShmSegment>> Create(const std::string& name, int rank,
                                                            size_t data_bytes = kRingBytes);
  // Maps a neighbour's segment; `rank` is the owner we expect to find there.
  static absl::StatusOr<std::shared_ptr<ShmSegment>> Open(const std::string& name, int rank,
                                                          size_t data_bytes = kRingBytes);
  ~ShmSegment();

  // Reads one byte of every page, so that this process's first uses of the
  // segment do not each pay a page fault: on a VM whose hypervisor shadows the
  // page tables, tens of microseconds a page, which MAP_POPULATE does not save.
  // A ring link cycles through its whole buffer (without this, a 4 KiB ring
  // allreduce took 28 µs a call until 1 MiB had passed, then 1.3 µs). Reads
  // only, so touching a live segment changes nothing.
  void TouchPages() const;
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;

  const std::string& name() const { return name_; }
  void Unlink();
  // Marks this rank as gone and wakes it (used on the own segment).
  void MarkGone();
  // Fails, naming the owner, when it marked itself gone or its process died.
  absl::Status CheckOwner() const;

  struct Header;
  Header* header() const { return header_; }
  int owner_rank() const;
  // The data bytes after the header (page-aligned).
  char* ring() const;
  size_t capacity() const;
  Doorbell* bell() const;
  // Ring positions: write_pos advanced by the previous rank, read_pos by the owner.
  std::atomic<uint64_t>& write_pos() const;
  std::atomic<uint64_t>& read_pos() const;

 private:
  ShmSegment(std::string name, Header* header, size_t size, bool owner)
      : name_(std::move(name)), header_(header), size_(size), owner_(owner) {}
  std::string name_;
  Header* header_;
  size_t size_;
  bool owner_;
  bool unlinked_ = false;
};

// A unique, unguessable segment name for this process and rank. Segments are
// created 0600 with O_EXCL and opened only when this user's and 0600.
std::string NewShmName(int rank);

// own: this rank's segment; next/prev: the neighbour's mapped segment.
std::unique_ptr<SendLink> MakeShmSendLink(std::shared_ptr<ShmSegment> own,
                                          std::shared_ptr<ShmSegment> next, int peer);
std::unique_ptr<RecvLink> MakeShmRecvLink(std::shared_ptr<ShmSegment> own,
                                          std::shared_ptr<ShmSegment> prev, int peer);

}  // namespace dlp::runtime
