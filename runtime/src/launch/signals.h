// Signals as events: SIGCHLD, SIGTERM, SIGINT, SIGHUP and SIGUSR1 (a planned
// stop: the ranks are asked to checkpoint, docs/runtime-contract.md) are
// turned into bytes on a self-pipe that the launcher's poll loop watches.
#pragma once

namespace dlp::launch {

// Installs the handlers (once) and ignores SIGPIPE. Returns the read end of
// the pipe (non-blocking); each byte read is a signal number.
int InstallSignalPipe();

// Reads every pending byte; returns the last terminating signal seen
// (SIGTERM/SIGINT/SIGHUP/SIGUSR1) or 0, and sets *child_exited on SIGCHLD.
int DrainSignalPipe(int fd, bool* child_exited);

}  // namespace dlp::launch
