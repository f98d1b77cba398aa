// How a batch script gives every task of a job the same rendezvous secret
// (DLP_RDZV_SECRET, docs/runtime-contract.md): drawn on the node where the
// script runs, when it runs, so that it is in no file and on no command line
// that Slurm or the submitter keeps. srun passes it on to each task.
#pragma once

namespace dlp::contract {

inline constexpr char kExportNewRdzvSecret[] =
    "export DLP_RDZV_SECRET=\"$(od -An -N32 -tx1 /dev/urandom | tr -d ' \\n')\"";

}  // namespace dlp::contract
