// How a job is handed to dlp-run (docs/runtime-contract.md, "Invocation"):
// finding the binary, and the one command line + environment for a job. dlpd's
// executor starts it, `dlp render` prints it, the Slurm batch script srun's it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace dlp::contract {

// $DLP_RUN when set, else dlp-run next to the running program
// (/proc/self/exe), else the first in PATH. NotFound naming the places tried.
absl::StatusOr<std::string> FindDlpRun();

// A job's folder as dlpd and the Slurm backend lay it out: the group file,
// one log per replica, the status file and the traces.
struct JobFolder {
  std::string path;
  std::string GroupFile() const { return path + "/group.json"; }
  std::string LogDir() const { return path + "/logs"; }
  std::string StatusFile() const { return path + "/status.json"; }
  std::string TraceDir() const { return path + "/traces"; }
  // What the job keeps (DLP_OUTPUT_DIR): artifacts, and the folder a pipeline's
  // later jobs read as ${jobs.NAME.outputDir}.
  std::string OutputDir() const { return path + "/output"; }
};

struct DlpRunJob {
  std::string dlp_run = "dlp-run";  // the binary
  std::string group_file;           // --group
  std::string log_dir;              // --log-dir
  std::string status_file;          // --status-file; empty: none
  std::string trace_dir;            // --trace-dir; empty: dlp-run's default (the log folder)
  std::optional<absl::Duration> grace_period;  // --grace-period; unset: dlp-run's default
  std::vector<int> gpus;                       // --gpus and CUDA_VISIBLE_DEVICES; empty: none
  std::string gpus_text;         // shown instead of `gpus` when they are not known yet
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

}  // namespace dlp::contract
