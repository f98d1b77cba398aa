// dlp model register|list|show|get|alias: the model registry of a dlpd.
// A version is a file of a job's output folder, kept content-addressed by
// dlpd with the job's spec, final metrics, labels and workdir commit.
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "command_table.h"
#include "common.h"
#include "dlp/artifacts.h"
#include "table.h"

namespace dlp::cli {
namespace {

struct ModelFlags {
  ModelRegistration reg;
  std::string ref;               // show, get: NAME[:VERSION|@ALIAS]
  std::string output = "table";  // list, show: table or json
  std::string dir = ".";         // get
  std::string alias_ref;         // alias set: NAME@ALIAS
  int version = 0;               // alias set
};

std::string Metrics(const ModelVersion& m) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : m.metrics) parts.push_back(absl::StrFormat("%s=%.6g", k, v));
  return parts.empty() ? "-" : absl::StrJoin(parts, " ");
}

std::string Time(absl::Time t) {
  return absl::FormatTime("%Y-%m-%d %H:%M:%S", t, absl::LocalTimeZone());
}

int RunRegister(const ModelFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<ModelVersion> model = (*client)->RegisterModel(flags.reg);
  if (!model.ok()) return ReportError(model.status());
  std::printf("%s\n", model->Ref().c_str());
  return Code(ExitCode::kSuccess);
}

int RunList(const ModelFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<std::vector<ModelVersion>> models = (*client)->ListModels();
  if (!models.ok()) return ReportError(models.status());
  if (flags.output == "json") {
    std::printf("%s\n", ModelVersionsToJson(*models, 2).c_str());
    return Code(ExitCode::kSuccess);
  }
  if (models->empty()) {
    std::printf("No models (register one with: dlp model register NAME --job ID --path FILE).\n");
    return Code(ExitCode::kSuccess);
  }
  Table table({"NAME", "VERSION", "ALIASES", "JOB", "FILE", "SIZE", "SHA256", "CREATED"});
  for (const ModelVersion& m : *models) {
    table.AddRow({m.name, absl::StrCat(m.version),
                  m.aliases.empty() ? "-" : absl::StrJoin(m.aliases, ","), m.job, m.file,
                  absl::StrCat(m.size), m.sha256.substr(0, 12), Time(m.created)});
  }
  table.Print(stdout, UseColor(globals, STDOUT_FILENO));
  return Code(ExitCode::kSuccess);
}

int RunShow(const ModelFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<ModelVersion> m = (*client)->GetModel(flags.ref);
  if (!m.ok()) return ReportError(m.status());
  if (flags.output == "json") {
    std::printf("%s\n", ModelVersionToJson(*m, 2).c_str());
    return Code(ExitCode::kSuccess);
  }
  auto field = [](const char* name, const std::string& value) {
    std::printf("%-15s %s\n", name, value.empty() ? "-" : value.c_str());
  };
  field("Model:", m->Ref());
  field("Aliases:", absl::StrJoin(m->aliases, ", "));
  field("File:", absl::StrCat(m->file, " (", m->size, " bytes)"));
  field("SHA-256:", m->sha256);
  field("Job:", m->job);
  field("Metrics:", Metrics(*m));
  std::vector<std::string> labels;
  for (const auto& [k, v] : m->labels) labels.push_back(absl::StrCat(k, "=", v));
  field("Labels:", absl::StrJoin(labels, " "));
  field("Git commit:", m->git_commit);
  field("Registered by:", m->registered_by.empty() ? "owner" : m->registered_by);
  field("Created:", Time(m->created));
  return Code(ExitCode::kSuccess);
}

int RunGet(const ModelFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<ModelVersion> m = (*client)->DownloadModel(flags.ref, flags.dir);
  if (!m.ok()) return ReportError(m.status());
  std::printf("%s: %s (%lld bytes, sha256 %s)\n", m->Ref().c_str(), m->file.c_str(),
              static_cast<long long>(m->size), m->sha256.c_str());
  return Code(ExitCode::kSuccess);
}

int RunAliasSet(const ModelFlags& flags, const GlobalFlags& globals) {
  const size_t at = flags.alias_ref.rfind('@');
  if (at == std::string::npos || at == 0 || at + 1 == flags.alias_ref.size()) {
    PrintError(absl::StrCat("expected NAME@ALIAS, got \"", flags.alias_ref, "\""));
    return Code(ExitCode::kUsage);
  }
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<ModelVersion> m = (*client)->SetModelAlias(
      flags.alias_ref.substr(0, at), flags.alias_ref.substr(at + 1), flags.version);
  if (!m.ok()) return ReportError(m.status());
  std::printf("%s@%s -> %s\n", m->name.c_str(), flags.alias_ref.substr(at + 1).c_str(),
              m->Ref().c_str());
  return Code(ExitCode::kSuccess);
}

// Adds a subcommand whose action runs `run` with `flags`.
CLI::App* Sub(CLI::App& parent, Invocation* inv, const char* name, const char* help,
              std::shared_ptr<ModelFlags> flags,
              int (*run)(const ModelFlags&, const GlobalFlags&)) {
  CLI::App* cmd = parent.add_subcommand(name, help);
  cmd->callback(
      [flags, inv, run] { inv->action = [flags, inv, run] { return run(*flags, inv->globals); }; });
  return cmd;
}

}  // namespace

void RegisterModel(CLI::App& parent, Invocation& invocation) {
  Invocation* inv = &invocation;
  CLI::App* cmd = parent.add_subcommand(
      "model", "Register, list, show and fetch model versions (a dlpd's model registry)");
  cmd->require_subcommand(1);
  auto flags = std::make_shared<ModelFlags>();

  CLI::App* reg = Sub(*cmd, inv, "register",
                      "Register a file of a job's output folder as the model's next version "
                      "(prints NAME:VERSION)",
                      flags, RunRegister);
  reg->add_option("NAME", flags->reg.name, "Model name")->required();
  reg->add_option("--job", flags->reg.job, "The job that wrote the file")
      ->required()
      ->option_text("JOB");
  reg->add_option("--path", flags->reg.path, "The file, relative to the job's output folder")
      ->required();
  reg->add_option("--alias", flags->reg.alias, "Point this alias at the new version (staging)");

  CLI::App* list = Sub(*cmd, inv, "list", "List every version of your models", flags, RunList);
  list->add_option("-o,--output", flags->output, "Output format: table or json")
      ->transform(Choices({"table", "json"}));

  CLI::App* show =
      Sub(*cmd, inv, "show", "Show one version: its file, job, metrics, labels and git commit",
          flags, RunShow);
  show->add_option("MODEL", flags->ref, "NAME (latest), NAME:VERSION or NAME@ALIAS")->required();
  show->add_option("-o,--output", flags->output, "Output format: table or json")
      ->transform(Choices({"table", "json"}));

  CLI::App* get = Sub(*cmd, inv, "get",
                      "Fetch a version's file into a folder, checking its SHA-256", flags, RunGet);
  get->add_option("MODEL", flags->ref, "NAME (latest), NAME:VERSION or NAME@ALIAS")->required();
  get->add_option("-o,--output-dir", flags->dir,
                  "Folder to write into (created; default: the current folder)")
      ->option_text("DIR");

  CLI::App* alias = cmd->add_subcommand("alias", "Manage a model's aliases");
  alias->require_subcommand(1);
  CLI::App* set = Sub(*alias, inv, "set", "Point NAME@ALIAS at VERSION", flags, RunAliasSet);
  set->add_option("ALIAS", flags->alias_ref, "NAME@ALIAS (staging, production)")->required();
  set->add_option("VERSION", flags->version, "The version it points at")->required();
}

}  // namespace dlp::cli
