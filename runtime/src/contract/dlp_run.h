// How a job is handed to dlp-run (docs/runtime-contract.md, "Invocation"):
// finding the binary, and the one command line + environment for a job. dlpd's
// executor starts it, `dlp render` prints it, the Slurm batch script srun's it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace dlp::contract {

// $DLP_RUN when set, else dlp-run next to the running program
// (/proc/self/exe), else the first in PATH. NotFound naming the places tried.
absl::StatusOr<std::string> FindDlpRun();

// The names in a job's folder, for readers that open them below it
// (contract/tenant_files.h).
inline constexpr char kGroupFileName[] = "group.json";
inline constexpr char kLogFolderName[] = "logs";
inline constexpr char kStatusFileName[] = "status.json";
inline constexpr char kTraceFolderName[] = "traces";
// What the job keeps (DLP_OUTPUT_DIR): artifacts, and the folder a pipeline's
// later jobs read as ${jobs.NAME.outputDir}.
inline constexpr char kOutputFolderName[] = "output";

// A job's folder as dlpd and the Slurm backend lay it out: the group file,
// one log per replica, the status file and the traces.
struct JobFolder {
  std::string path;
  std::string GroupFile() const { return absl::StrCat(path, "/", kGroupFileName); }
  std::string LogDir() const { return absl::StrCat(path, "/", kLogFolderName); }
  std::string StatusFile() const { return absl::StrCat(path, "/", kStatusFileName); }
  std::string TraceDir() const { return absl::StrCat(path, "/", kTraceFolderName); }
  std::string OutputDir() const { return absl::StrCat(path, "/", kOutputFolderName); }
};

struct DlpRunJob {
  std::string dlp_run = "dlp-run";  // the binary
  std::string group_file;           // --group
  std::string log_dir;              // --log-dir
  std::string status_file;          // --status-file; empty: none
  std::string trace_dir;            // --trace-dir; empty: dlp-run's default (the log folder)
  std::optional<absl::Duration> grace_period;  // --grace-period; unset: dlp-run's default
  std::string job_id, job_name;  // DLP_JOB_ID, DLP_JOB_NAME (unset when empty)
  std::string output_dir;        // DLP_OUTPUT_DIR (JobFolder::OutputDir); unset when empty
};

struct DlpRunCommand {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // on top of the caller's environment

  // "K=V ... dlp-run --group ..." with every word quoted as a shell needs.
  std::string ShellLine() const;
};

DlpRunCommand MakeDlpRunCommand(const DlpRunJob& job);

// How dlpd's executor starts dlp-run for job `id` in `folder` (each
// replica's GPUs are in the group file: Role::devices).
DlpRunCommand ExecutorDlpRunCommand(const std::string& dlp_run, const JobFolder& folder,
                                    const std::string& id, const std::string& name,
                                    absl::Duration grace_period);

}  // namespace dlp::contract
