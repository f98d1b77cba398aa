// The trust boundary's one rule, held in the sources (docs/security.md): dlpd
// reads a job's files only through contract/tenant_files.h, or as the job's
// user. Every other way to open a file in the server, the artifact reader and
// the trace reader is listed here with the only files it opens; a new one
// fails this test until it says why it never opens a tenant's path.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace dlp {
namespace {

namespace fs = std::filesystem;

// Source file (from the repository's root) -> the only files its plain opens reach.
const std::map<std::string, std::string>& Allowed() {
  static const std::map<std::string, std::string> allowed = {
      {"server/auth/auth.cc", "the tokens file dlpd was started with"},
      {"server/daemon/daemon_config.cc", "dlpd's configuration file"},
      {"server/daemon/state_dir.cc", "dlpd's own state folder (lock, address)"},
      {"server/executor/cgroup.cc", "cgroup files below dlpd's own cgroup"},
      {"server/executor/gpu_device_access.cc", "a job's cgroup v2 folder, which dlpd made"},
      {"server/executor/process.cc",
       "/proc; dlp-run's output file is opened by base::Spawn in the child after it became "
       "the job's user"},
      {"server/support/log.cc", "dlpd.log in the state folder"},
      {"server/models/git_head.cc", "a workdir, read in a child that became the job's user"},
      {"server/monitor/proc_stats.cc", "/proc"},
      {"server/proc/proc_file.cc", "/proc"},
      {"server/proc/session_processes.cc", "/proc"},
      {"server/scheduler/gpu_inventory.cc", "the GPU inventory file dlpd was given"},
      {"server/scheduler/resources.cc", "/proc/meminfo"},
      {"server/ui/embed_ui_main.cc", "the web UI's built files, at build time"},
      {"server/ui/ui_assets.cc", "the web UI's installed files"},
      {"runtime/src/contract/output_folder.cc",
       "a folder the caller trusts as its own (OpenOwnFolder), and entries below a "
       "TenantFolder's descriptor with O_NOFOLLOW"},
      {"libdlp/src/artifacts/verified_file.cc", "a download the client writes into its own folder"},
      {"libdlp/src/profile/chart/cairo_chart.cc", "the chart the user asked to write"},
      {"libdlp/src/profile/trace_dir.cc", "ReadTraceDir: a folder the caller trusts as its own"},
  };
  return allowed;
}

TEST(TenantFileAccessTest, ServerOpensFilesOnlyThroughTheBoundary) {
  const std::regex plain_open(
      R"((\bopen\(|fopen\(|ifstream|ReadFileNoFollow|ReadFileIfExists|OpenRegularFileNoFollow|opendir\(|directory_iterator))");
  const fs::path src = fs::path(DLP_SOURCE_DIR);
  std::vector<fs::path> files = {src / "runtime/src/contract/output_folder.cc"};
  for (const char* folder : {"server", "libdlp/src/artifacts", "libdlp/src/profile"}) {
    for (const auto& entry : fs::recursive_directory_iterator(src / folder)) {
      if (entry.path().extension() == ".cc") files.push_back(entry.path());
    }
  }
  for (const fs::path& file : files) {
    const std::string rel = fs::relative(file, src).string();
    std::ifstream in(file);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      const size_t comment = line.find("//");
      const std::string code = comment == std::string::npos ? line : line.substr(0, comment);
      if (std::regex_search(code, plain_open) && !Allowed().contains(rel)) {
        ADD_FAILURE() << rel << ":" << n << ": a plain open in the server: read a job's "
                      << "files through contract/tenant_files.h, or list this file in "
                      << "Allowed() with the only files it opens\n    " << line;
      }
    }
  }
  EXPECT_GT(files.size(), 100u);  // the folders were found
}

}  // namespace
}  // namespace dlp
