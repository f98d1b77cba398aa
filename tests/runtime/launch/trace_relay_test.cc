// dlp-run's trace relay: complete lines of every trace file, once each, in
// order, a line cut by a write completed on a later pump.
#include "launch/trace_relay.h"

#include <fcntl.h>
#include <unistd.h>

#include "gmock/gmock.h"
#include "support/temp_dir.h"

namespace dlp::launch {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class Collect : public LineWriter {
 public:
  void WriteLine(Stream, absl::string_view line) override { lines.emplace_back(line); }
  std::vector<std::string> lines;
};

void Append(const std::string& path, const std::string& bytes) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  close(fd);
}

TEST(TraceRelay, RelaysCompleteLinesOnceAndFinishesACutLineLater) {
  testing::TempDir dir;
  Collect out;
  TraceRelay relay(dir.path(), &out);
  relay.Pump();
  EXPECT_THAT(out.lines, IsEmpty());
  const std::string file = dir.Join("rank-0.trace.json");
  Append(file, "[\n{\"a\":1},\n{\"b\"");
  Append(dir.Join("rank-0.log"), "not a trace\n");
  relay.Pump();
  EXPECT_THAT(out.lines, ElementsAre("DLP_TRACE_LINE rank-0.trace.json [",
                                     "DLP_TRACE_LINE rank-0.trace.json {\"a\":1},"));
  out.lines.clear();
  relay.Pump();
  EXPECT_THAT(out.lines, IsEmpty());
  Append(file, ":2}]\n");
  relay.Pump();
  EXPECT_THAT(out.lines, ElementsAre("DLP_TRACE_LINE rank-0.trace.json {\"b\":2}]"));
}

TEST(TraceRelay, ALineTooLongForTheLogIsDroppedAndTheNextOneRelayed) {
  testing::TempDir dir;
  Collect out;
  TraceRelay relay(dir.path(), &out);
  const std::string file = dir.Join("rank-1.trace.json");
  Append(file, std::string(200 * 1024, 'x'));
  relay.Pump();
  Append(file, "\n{\"c\":3},\n");
  relay.Pump();
  EXPECT_THAT(out.lines, ElementsAre("DLP_TRACE_LINE rank-1.trace.json {\"c\":3},"));
}

}  // namespace
}  // namespace dlp::launch
