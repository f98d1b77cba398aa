// `dlp pipeline` (pipeline.cc), and the pipeline path of `dlp submit`.
#pragma once

#include <string>

#include "command.h"
#include "dlp/client.h"

namespace dlp::cli {

// Steps (Client::StepPipeline) the pipeline until it ends: where the backend
// moves pipelines on in the foreground (Kubernetes) this process creates the
// jobs as their dependencies are met; elsewhere it only watches. Progress on
// stderr, the tree at the end; Ctrl-C stops (exit 130) and `dlp pipeline
// resume ID` goes on. Returns the exit code, as a job's with the pipeline's
// state.
int FollowPipeline(Client& client, const std::string& id, bool quiet, const GlobalFlags& globals);

}  // namespace dlp::cli
