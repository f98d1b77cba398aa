#include "comm/transports/peer_error.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace dlp::runtime {

absl::Status PeerError(const absl::Status& s, const char* what, int rank, int peer) {
  absl::Status out(s.code(), absl::StrCat(what, " on rank ", rank, ": ", s.message()));
  out.SetPayload(kPeerPayload, absl::Cord(std::to_string(peer)));
  return out;
}

}  // namespace dlp::runtime
