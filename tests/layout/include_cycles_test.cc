// The layout's one rule (CONTRIBUTING.md, "Layout"): folders form layers. A
// folder may include headers of folders below it, never of one that includes
// it back, however long the way round; a shared piece that two folders need
// lives below both (server/logs/ under api/, controller/ and models/).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace dlp {
namespace {

namespace fs = std::filesystem;

// Folder -> folder it includes -> one include line that shows it.
using IncludeGraph = std::map<std::string, std::map<std::string, std::string>>;

// The folder-level include graph of the sources below `root` (each path in an
// #include "..." that names a file below `root`, the path taken from
// `include_root`: libdlp/src's files include "spec/...", the server's
// "server/..." from the repository's root).
IncludeGraph FolderIncludes(const fs::path& root, const fs::path& include_root) {
  const std::regex include_line(R"re(^\s*#\s*include\s+"([^"]+)")re");
  IncludeGraph graph;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".cc" && ext != ".h" && ext != ".cu") continue;
    const std::string from = fs::relative(entry.path().parent_path(), root).string();
    std::ifstream in(entry.path());
    std::string line;
    std::smatch m;
    for (int n = 1; std::getline(in, line); ++n) {
      if (!std::regex_search(line, m, include_line)) continue;
      const fs::path included = include_root / m[1].str();
      if (!fs::exists(included)) continue;  // a system or generated header
      const std::string to = fs::relative(included.parent_path(), root).string();
      if (to.starts_with("..")) continue;  // a header of another part
      if (to == from) continue;
      graph[from].emplace(to, fs::relative(entry.path(), root).string() + ":" + std::to_string(n) +
                                  ": " + line);
    }
  }
  return graph;
}

// The strongly connected components of more than one folder (Tarjan's).
std::vector<std::vector<std::string>> Cycles(const IncludeGraph& graph) {
  std::map<std::string, int> index, low;
  std::vector<std::string> stack;
  std::set<std::string> on_stack;
  std::vector<std::vector<std::string>> cycles;
  int next = 0;
  std::function<void(const std::string&)> visit = [&](const std::string& v) {
    index[v] = low[v] = next++;
    stack.push_back(v);
    on_stack.insert(v);
    if (auto it = graph.find(v); it != graph.end()) {
      for (const auto& [w, unused] : it->second) {
        if (!index.contains(w)) {
          visit(w);
          low[v] = std::min(low[v], low[w]);
        } else if (on_stack.contains(w)) {
          low[v] = std::min(low[v], index[w]);
        }
      }
    }
    if (low[v] != index[v]) return;
    std::vector<std::string> component;
    std::string w;
    do {
      w = stack.back();
      stack.pop_back();
      on_stack.erase(w);
      component.push_back(w);
    } while (w != v);
    if (component.size() > 1) cycles.push_back(component);
  };
  for (const auto& [v, unused] : graph) {
    if (!index.contains(v)) visit(v);
  }
  return cycles;
}

// A part of the sources, and the folder its includes are written from.
struct Part {
  const char* folder;
  const char* include_root;
};

class IncludeCyclesTest : public testing::TestWithParam<Part> {};

TEST_P(IncludeCyclesTest, FoldersIncludeEachOtherOneWayOnly) {
  const fs::path source = DLP_SOURCE_DIR;
  const fs::path root = source / GetParam().folder;
  const IncludeGraph graph = FolderIncludes(root, source / GetParam().include_root);
  EXPECT_GE(graph.size(), 3u) << "no folders found below " << root;
  for (const auto& cycle : Cycles(graph)) {
    std::string why;
    const std::set<std::string> members(cycle.begin(), cycle.end());
    for (const auto& from : cycle) {
      for (const auto& [to, line] : graph.at(from)) {
        if (members.contains(to)) why += "\n    " + from + " -> " + to + " (" + line + ")";
      }
    }
    ADD_FAILURE() << GetParam().folder << ": these folders include each other:" << why;
  }
}

INSTANTIATE_TEST_SUITE_P(Sources, IncludeCyclesTest,
                         testing::Values(Part{"libdlp/src", "libdlp/src"},
                                         Part{"runtime/src", "runtime/src"},
                                         Part{"trainer", "trainer"},
                                         Part{"server", "."}));

}  // namespace
}  // namespace dlp
