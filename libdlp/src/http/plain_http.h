// HTTP/1.1 over a plain TCP socket, for http:// URLs: the local backend's
// loopback dlpd and remote servers without TLS. Written on POSIX sockets rather
// than cpp-httplib because Debian's libcpp-httplib.so is built with OpenSSL, and
// loading it costs every `dlp` process about as much as the rest of its start.
// One connection per exchange ("Connection: close"); responses framed by
// Content-Length, chunked transfer coding or the end of the connection.
#pragma once

#include "http/exchange.h"

namespace dlp::internal {

// Performs `exchange` (whose url starts with "http://"). Thread-safe.
HttpFailure PlainHttpExchange(HttpExchange& exchange);

}  // namespace dlp::internal
