// A collective's failure on one link, naming the neighbour it failed on, so
// that the caller can leave the group (Abandon) after reporting it.
#pragma once

#include "absl/status/status.h"

namespace dlp::runtime {

// Payload of a failed collective's Status: the rank of the neighbour it failed on.
inline constexpr char kPeerPayload[] = "dlp.comm.peer";

// `s` as a collective's failure: "<what> on rank <rank>: <message>", with the
// neighbour's rank `peer` as kPeerPayload.
absl::Status PeerError(const absl::Status& s, const char* what, int rank, int peer);

}  // namespace dlp::runtime
