// Text a job controls, made harmless to print on a terminal. A tenant's job
// chooses its name, its spec, the reasons and host its status file gives,
// and its log lines; escape sequences in them would drive the terminal of
// whoever reads them (OSC 52 writes the clipboard on some terminals). Every
// field of a job the CLI prints as text goes through TerminalSafe; log lines
// go through it when they go to a terminal (to a pipe or a file they are the
// job's output, byte for byte).
#pragma once

#include <string>
#include <string_view>

namespace dlp::cli {

// `text` with each C0 control but tab and newline, DEL, and each C1 control
// (U+0080 to U+009F) written as an escape that shows and does nothing: \x1b
// for ESC, \u009b for CSI. Everything else is left as it is.
std::string TerminalSafe(std::string_view text);

}  // namespace dlp::cli
