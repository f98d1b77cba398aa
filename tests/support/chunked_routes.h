// Chunked answers for tests of HTTP clients against a cpp-httplib server:
// pieces sent as chunks as they are (lines split across them, as a log stream
// sends them), and a body that does not end, as a hostile server sends.
#pragma once

#include <httplib.h>

#include <string>
#include <utility>
#include <vector>

namespace dlp::testing {

// Answers GET `path` with `pieces`, one chunk each.
inline void ServeChunks(httplib::Server& server, const std::string& path,
                        std::vector<std::string> pieces) {
  server.Get(path, [pieces = std::move(pieces)](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/x-ndjson",
                                     [pieces](size_t, httplib::DataSink& sink) {
                                       for (const std::string& piece : pieces) {
                                         sink.write(piece.data(), piece.size());
                                       }
                                       sink.done();
                                       return true;
                                     });
  });
}

// Answers GET `path` with spaces without end (up to 256 MiB, so that a client
// without a cap fails the test, not the machine).
inline void ServeEndless(httplib::Server& server, const std::string& path) {
  server.Get(path, [](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [](size_t offset,
                                                             httplib::DataSink& sink) {
      const std::string piece(1 << 20, ' ');
      if (offset >= (size_t{256} << 20)) {
        sink.done();
        return true;
      }
      return sink.write(piece.data(), piece.size());
    });
  });
}

}  // namespace dlp::testing
