// The ports dlp-run puts in TF_CONFIG are the tasks' own: distinct, apart from
// MASTER_PORT, and free when the task starts (dlp-run holds none of them), so
// that each task's gRPC server binds its port. examples/tensorflow/ runs the
// real TensorFlow servers (tests/examples/tensorflow/, label frameworks).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "launch_test_util.h"
#include "support/temp_dir.h"

namespace dlp::testing {
namespace {

using ::testing::SizeIs;

// Binds the task's TF_CONFIG port on every address, as TensorFlow's server
// does, and prints it with MASTER_PORT.
constexpr char kBindOwnPort[] = R"(
import json, os, socket
config = json.loads(os.environ["TF_CONFIG"])
task = config["task"]
port = int(config["cluster"][task["type"]][task["index"]].rsplit(":", 1)[1])
server = socket.socket(socket.AF_INET6)
server.bind(("::", port))
server.listen()
print("bound", port, os.environ["MASTER_PORT"], flush=True)
)";

// Each task's "bound PORT MASTER_PORT" line in `output` (dlp-run's prefixed
// output or the tasks' logs): one per task, and every port distinct from the
// others and from MASTER_PORT.
void ExpectDistinctPortsApartFromMaster(const std::string& output, size_t tasks) {
  std::set<int> ports;
  int master = 0;
  size_t lines = 0;
  for (absl::string_view line : absl::StrSplit(output, '\n', absl::SkipEmpty())) {
    const size_t at = line.find("bound ");
    if (at == absl::string_view::npos) continue;
    std::vector<std::string> words = absl::StrSplit(line.substr(at), ' ');
    ASSERT_THAT(words, SizeIs(3)) << line;
    ports.insert(std::stoi(words[1]));
    master = std::stoi(words[2]);
    ++lines;
  }
  EXPECT_EQ(lines, tasks) << output;
  EXPECT_EQ(ports.size(), tasks) << output;
  EXPECT_EQ(ports.count(master), 0u) << output;
}

TEST(TfConfigPorts, EveryWorkerBindsItsOwnPort) {
  TempDir dir;
  const std::string script = dir.WriteFile("bind.py", kBindOwnPort);
  const RunResult r =
      testing::Run({DlpRun(), "-np", "6", "--framework", "tensorflow", "--", "/usr/bin/python3", script},
          {.timeout = absl::Seconds(60)});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ExpectDistinctPortsApartFromMaster(r.out, 6);
}

TEST(TfConfigPorts, ChiefPsAndWorkersBindTheirOwnPorts) {
  TempDir dir;
  const std::string command = absl::StrCat(R"(["/usr/bin/python3", ")",
                                           dir.WriteFile("bind.py", kBindOwnPort), R"("])");
  const std::string group = absl::StrCat(
      R"({"framework": "tensorflow", "roles": [)",
      R"({"role": "chief", "count": 1, "command": )", command, "},",
      R"({"role": "ps", "count": 2, "command": )", command, "},",
      R"({"role": "worker", "count": 3, "command": )", command, "}]}");
  const RunResult r = testing::Run(
      {DlpRun(), "--group", dir.WriteFile("group.json", group), "--log-dir", dir.Join("logs")},
      {.timeout = absl::Seconds(60)});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::string logs;
  for (const char* name : {"chief-0", "ps-0", "ps-1", "worker-0", "worker-1", "worker-2"}) {
    logs += ReadFileOrEmpty(dir.Join(absl::StrCat("logs/", name, ".log")));
  }
  ExpectDistinctPortsApartFromMaster(logs, 6);
}

}  // namespace
}  // namespace dlp::testing
