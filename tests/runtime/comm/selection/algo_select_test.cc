// The allreduce algorithm choice against the selection table that
// docs/collectives.md publishes: every row of the table is a case here, so
// the document and the code cannot drift apart.
#include "comm/selection/algo_select.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"

namespace dlp::runtime {
namespace {

struct Row {
  int line;
  GroupShape shape;
  size_t bytes;
  std::string forced;
  std::string algorithm;
};

// "4 KiB", "1 MiB", "512 B".
size_t ParseBytes(absl::string_view text) {
  std::vector<std::string> parts = absl::StrSplit(text, ' ', absl::SkipEmpty());
  size_t n = 0;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &n)) return 0;
  if (parts[1] == "KiB") return n << 10;
  if (parts[1] == "MiB") return n << 20;
  if (parts[1] == "GiB") return n << 30;
  return parts[1] == "B" ? n : 0;
}

// The rows between the markers: | ranks | one host | ranks > cores | bytes | DLP_COMM_ALGO |
// algorithm |
std::vector<Row> ReadTable() {
  std::ifstream in(std::string(DLP_SOURCE_DIR) + "/docs/collectives.md");
  std::vector<Row> rows;
  bool inside = false;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find("<!-- selection-table begin -->") != std::string::npos) inside = true;
    if (line.find("<!-- selection-table end -->") != std::string::npos) inside = false;
    if (!inside || line.rfind("| ", 0) != 0 || line.find("---") != std::string::npos) continue;
    std::vector<std::string> cells;
    for (absl::string_view cell : absl::StrSplit(line, '|')) {
      cells.emplace_back(absl::StripAsciiWhitespace(cell));
    }
    // cells[0] and the last are the empty text outside the outer bars.
    if (cells.size() != 8 || cells[1] == "ranks") continue;
    Row row;
    row.line = number;
    EXPECT_TRUE(absl::SimpleAtoi(cells[1], &row.shape.ranks)) << "line " << number;
    EXPECT_TRUE(absl::SimpleAtoi(cells[2], &row.shape.hosts)) << "line " << number;
    row.shape.one_host = row.shape.hosts == 1;
    row.shape.oversubscribed = cells[3] == "yes";
    row.bytes = ParseBytes(cells[4]);
    EXPECT_GT(row.bytes, 0u) << "line " << number << ": " << cells[4];
    row.forced = cells[5];
    row.algorithm = cells[6];
    rows.push_back(row);
  }
  return rows;
}

TEST(AlgoSelectTest, CodeFollowsTheDocumentedTable) {
  std::vector<Row> rows = ReadTable();
  ASSERT_GE(rows.size(), 10u) << "no selection table in docs/collectives.md";
  for (const Row& row : rows) {
    EXPECT_EQ(AlgoName(ChooseAllreduce(row.shape, row.bytes, row.forced)), row.algorithm)
        << "docs/collectives.md line " << row.line;
  }
}

TEST(AlgoSelectTest, ForcedAlgorithmsAreChecked) {
  GroupShape two_hosts{.ranks = 4, .hosts = 2};
  GroupShape one_per_host{.ranks = 4, .hosts = 4};
  GroupShape one_host{.ranks = 4, .hosts = 1, .one_host = true};
  EXPECT_TRUE(CheckAlgo("auto", two_hosts).ok());
  EXPECT_TRUE(CheckAlgo("ring", two_hosts).ok());
  EXPECT_TRUE(CheckAlgo("direct", one_host).ok());
  EXPECT_TRUE(CheckAlgo("oneshot", one_host).ok());
  absl::Status across = CheckAlgo("direct", two_hosts);
  EXPECT_TRUE(absl::IsInvalidArgument(across));
  EXPECT_NE(across.message().find("one host"), absl::string_view::npos) << across;
  EXPECT_TRUE(CheckAlgo("hierarchical", two_hosts).ok());
  EXPECT_TRUE(absl::IsInvalidArgument(CheckAlgo("hierarchical", one_per_host)));
  EXPECT_TRUE(absl::IsInvalidArgument(CheckAlgo("hierarchical", one_host)));
  absl::Status unknown = CheckAlgo("tree", one_host);
  EXPECT_TRUE(absl::IsInvalidArgument(unknown));
  EXPECT_NE(unknown.message().find("DLP_COMM_ALGO='tree'"), absl::string_view::npos) << unknown;
}

TEST(AlgoSelectTest, DirectRoundsAreLargerWhenRanksShareCores) {
  GroupShape quiet{.ranks = 4, .hosts = 1, .one_host = true};
  GroupShape shared{.ranks = 4, .hosts = 1, .one_host = true, .oversubscribed = true};
  EXPECT_LT(DirectChunkBytes(quiet), DirectChunkBytes(shared));
}

// Reduce-scatter and allgather go direct on one host, cores shared or not,
// unless the ring is forced; across hosts they take the ring.
TEST(AlgoSelectTest, BlockCollectivesGoDirectOnOneHost) {
  GroupShape quiet{.ranks = 4, .hosts = 1, .one_host = true};
  GroupShape shared{.ranks = 4, .hosts = 1, .one_host = true, .oversubscribed = true};
  GroupShape two_hosts{.ranks = 4, .hosts = 2};
  GroupShape alone{.ranks = 1, .hosts = 1, .one_host = true};
  for (const char* forced : {"auto", "direct", "oneshot"}) {
    EXPECT_EQ(ChooseBlockCollective(quiet, forced), Algo::kDirect) << forced;
    EXPECT_EQ(ChooseBlockCollective(shared, forced), Algo::kDirect) << forced;
  }
  EXPECT_EQ(ChooseBlockCollective(shared, "ring"), Algo::kRing);
  EXPECT_EQ(ChooseBlockCollective(two_hosts), Algo::kRing);
  EXPECT_EQ(ChooseBlockCollective(two_hosts, "hierarchical"), Algo::kRing);
  EXPECT_EQ(ChooseBlockCollective(alone), Algo::kRing);
}

}  // namespace
}  // namespace dlp::runtime
