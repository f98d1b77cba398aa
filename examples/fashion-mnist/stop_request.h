// SIGUSR1 asks a run to write a checkpoint where it stands and stop: dlp-run
// passes it on before an elastic job's group re-forms at another size
// (docs/runtime-contract.md, "Stopping"). The signal is blocked in every
// thread and taken between optimizer steps, so that no collective, write or
// device call is ever interrupted; the ranks then agree once a step, so that
// every rank stops after the same one even when the signal reaches them at
// different moments.
#pragma once

#include "dlp/status.h"
#include "ranks.h"

namespace dlp::fmnist {

// Blocks SIGUSR1 in the calling thread and every thread it starts afterwards.
// Call first in main, before any thread exists (the communicator's included).
void BlockStopRequests();

// Whether SIGUSR1 reached this process since BlockStopRequests (taken, and
// remembered). Thread-compatible: call from the training thread.
bool StopRequested();

// Whether any rank was asked to stop: the same answer on every rank (one
// float all-reduced when there are several). Every rank calls it after each step.
absl::StatusOr<bool> AnyRankAskedToStop(Ranks& ranks);

}  // namespace dlp::fmnist
