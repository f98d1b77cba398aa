// The KEY=VALUE lines of a service's env file (what scripts/services.sh
// start writes for the tests): the file named by $`env_var`, else
// `default_path`. Empty when there is none.
#pragma once

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

namespace dlp::testing {

inline std::map<std::string, std::string> ReadEnvFile(const char* env_var,
                                                      const std::string& default_path) {
  const char* path = getenv(env_var);
  std::ifstream in(path ? path : default_path);
  std::map<std::string, std::string> env;
  for (std::string line; std::getline(in, line);) {
    size_t eq = line.find('=');
    if (eq != std::string::npos) env[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return env;
}

}  // namespace dlp::testing
