// Ctrl-C while waiting or following: dlp stops watching and exits 130; the
// job itself keeps running in its backend.
#pragma once

namespace dlp::cli {

enum class InterruptMode {
  kFlag,  // set a flag that wait loops poll (they return within a poll period)
  kExit,  // exit(130) at once: for streams that block in a read (log following)
};

// Installs the SIGINT (and SIGTERM) handler; may be called again to switch mode.
void InstallInterruptHandler(InterruptMode mode);
bool Interrupted();

}  // namespace dlp::cli
