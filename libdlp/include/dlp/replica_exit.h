// How a replica's end is told, in one wording for dlpd's executor and the
// Slurm backend: "worker-2 exited with code 3", "worker-0 killed by signal 9
// (SIGKILL)", "worker-1 could not start: cannot execute x: No such file or directory".
#pragma once

#include <string>

#include "dlp/job.h"

namespace dlp {

std::string DescribeReplicaExit(const JobReplica& replica);

}  // namespace dlp
