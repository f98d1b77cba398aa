#pragma once

namespace dlp {
// The library's version, "MAJOR.MINOR.PATCH".
const char* Version();
}  // namespace dlp
