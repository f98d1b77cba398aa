// TCP links: one socket per direction of a ring neighbour pair, non-blocking,
// TCP_NODELAY and large kernel buffers. The receiving side stages bytes in
// its own buffer so the algorithm can reduce straight out of it.
#pragma once

#include <memory>
#include <vector>

#include "comm/transports/link.h"
#include "common/socket.h"

namespace dlp::runtime {

std::unique_ptr<SendLink> MakeTcpSendLink(Fd fd, int peer);
std::unique_ptr<RecvLink> MakeTcpRecvLink(Fd fd, int peer);

}  // namespace dlp::runtime
