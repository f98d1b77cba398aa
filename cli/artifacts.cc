// dlp artifacts list JOB [PATH] [-o table|json] and
// dlp artifacts get JOB [PATH] [-o DIR]: the files a job wrote into its
// output folder ($DLP_OUTPUT_DIR), fetched with their SHA-256 checked.
#include "dlp/artifacts.h"

#include <unistd.h>

#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "command_table.h"
#include "common.h"
#include "table.h"

namespace dlp::cli {
namespace {

struct ArtifactsFlags {
  std::string job;
  std::string path;
  std::string output = "table";  // list: table or json
  std::string dir = ".";         // get: where to write
};

int RunList(const ArtifactsFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<std::vector<Artifact>> list = (*client)->ListArtifacts(flags.job, flags.path);
  if (!list.ok()) return ReportError(list.status());
  if (flags.output == "json") {
    std::printf("%s\n", ArtifactsToJson(*list, 2).c_str());
    return Code(ExitCode::kSuccess);
  }
  if (list->empty()) {
    std::printf("Job %s has no artifacts (a job writes them into $DLP_OUTPUT_DIR).\n",
                flags.job.c_str());
    return Code(ExitCode::kSuccess);
  }
  Table table({"PATH", "SIZE", "MODIFIED", "SHA256"});
  for (const Artifact& a : *list) {
    table.AddRow({a.path, absl::StrCat(a.size),
                  absl::FormatTime("%Y-%m-%d %H:%M:%S", a.mtime, absl::LocalTimeZone()),
                  a.sha256.substr(0, 12)});
  }
  table.Print(stdout, UseColor(globals, STDOUT_FILENO));
  return Code(ExitCode::kSuccess);
}

int RunGet(const ArtifactsFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<std::vector<Artifact>> written =
      (*client)->DownloadArtifacts(flags.job, flags.path, flags.dir);
  if (!written.ok()) return ReportError(written.status());
  for (const Artifact& a : *written) {
    std::printf("%s (%lld bytes, sha256 %s)\n", a.path.c_str(), static_cast<long long>(a.size),
                a.sha256.c_str());
  }
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterArtifacts(CLI::App& parent, Invocation& invocation) {
  Invocation* inv = &invocation;
  CLI::App* cmd = parent.add_subcommand(
      "artifacts", "List or fetch the files a job wrote into its output folder ($DLP_OUTPUT_DIR)");
  cmd->require_subcommand(1);

  auto list_flags = std::make_shared<ArtifactsFlags>();
  CLI::App* list = cmd->add_subcommand("list", "List a job's artifacts: path, size, time, SHA-256");
  list->add_option("JOB", list_flags->job, "Job id")->required();
  list->add_option("PATH", list_flags->path, "Only this file or sub-folder");
  list->add_option("-o,--output", list_flags->output, "Output format: table or json")
      ->transform(Choices({"table", "json"}));
  list->callback([list_flags, inv] {
    inv->action = [list_flags, inv] { return RunList(*list_flags, inv->globals); };
  });

  auto get_flags = std::make_shared<ArtifactsFlags>();
  CLI::App* get = cmd->add_subcommand(
      "get", "Fetch a job's artifacts (all, or PATH) into a folder, checking each SHA-256");
  get->add_option("JOB", get_flags->job, "Job id")->required();
  get->add_option("PATH", get_flags->path, "A file or sub-folder of the output folder");
  get->add_option("-o,--output-dir", get_flags->dir,
                  "Folder to write into (created; default: the current folder)")
      ->option_text("DIR");
  get->callback([get_flags, inv] {
    inv->action = [get_flags, inv] { return RunGet(*get_flags, inv->globals); };
  });
}

}  // namespace dlp::cli
