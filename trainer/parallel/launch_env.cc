#include "parallel/launch_env.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace dlp::fmnist {

absl::StatusOr<int> WorldSizeFromEnv() {
  for (const char* name : {"WORLD_SIZE", "DLP_WORLD_SIZE"}) {
    const char* value = std::getenv(name);
    if (value == nullptr) continue;
    int size = 0;
    if (!absl::SimpleAtoi(value, &size) || size < 1) {
      return absl::InvalidArgumentError(absl::StrCat(name, "=\"", value, "\" is not a rank count"));
    }
    return size;
  }
  return 1;
}

int LocalWorldSizeFromEnv() {
  int local = 1;
  const char* value = std::getenv("LOCAL_WORLD_SIZE");
  if (value == nullptr || !absl::SimpleAtoi(value, &local)) return 1;
  return std::max(local, 1);
}

}  // namespace dlp::fmnist
