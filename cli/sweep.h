// `dlp sweep` (sweep.cc, sweep_status.cc), and the sweep path of `dlp submit`.
#pragma once

#include <string>

#include "command.h"
#include "dlp/client.h"
#include "dlp/sweep.h"

namespace dlp::cli {

struct SweepSubmitFlags {
  bool follow = false;      // drive (foreground) or watch it until it ends
  bool foreground = false;  // run the controller here even where dlpd could
  bool quiet = false;       // print only the id
};

// Submits a parsed sweep and prints its id; follows it when asked. Returns
// the exit code.
int SubmitSweep(const SweepSpec& spec, const SweepSubmitFlags& flags, const GlobalFlags& globals);
// Follows (foreground: drives) the sweep until it ends, printing progress
// on stderr and the leaderboard at the end; Ctrl-C stops following.
int FollowSweep(Client& client, const std::string& id, bool quiet, const GlobalFlags& globals);
// `dlp sweep status`: the leaderboard (or -o json), and the chart of each
// trial's objective over the resource (--plot, --png FILE).
int ShowSweepStatus(const std::string& id, const std::string& output, bool plot,
                    const std::string& png, const GlobalFlags& globals);
// The leaderboard: one row per trial, best first.
void PrintLeaderboard(const Sweep& sweep, bool color);

}  // namespace dlp::cli
