#include <gtest/gtest.h>

#include "dlp/config.h"

namespace dlp {
namespace {

Context Remote(const std::string& server, const std::string& opt_in = "") {
  Context context{"team", "remote", {{"server", server}, {"token", "secret"}}};
  if (!opt_in.empty()) context.fields["allow-insecure-http"] = opt_in;
  return context;
}

TEST(CheckServerTransportTest, PlainHttpToAnotherMachineIsRefused) {
  for (const char* url :
       {"http://gpu-box:8470", "http://10.0.0.5:8470", "HTTP://10.0.0.5:1/",
        "http://[2001:db8::1]:8470", "http://128.0.0.1:1", "http://localhost.evil.example:1"}) {
    absl::Status status = CheckServerTransport(Remote(url));
    ASSERT_TRUE(absl::IsFailedPrecondition(status)) << url;
    EXPECT_NE(status.message().find("in clear"), absl::string_view::npos) << status;
    EXPECT_NE(status.message().find("--allow-insecure-http"), absl::string_view::npos);
  }
}

TEST(CheckServerTransportTest, HttpsLoopbackAndTheOptInPass) {
  for (const char* url : {"https://gpu-box:8470", "http://127.0.0.1:8470", "http://127.1.2.3:1",
                          "http://localhost:8470", "http://[::1]:8470", ""}) {
    EXPECT_TRUE(CheckServerTransport(Remote(url)).ok()) << url;
  }
  EXPECT_TRUE(CheckServerTransport(Remote("http://gpu-box:8470", "true")).ok());
  EXPECT_FALSE(CheckServerTransport(Remote("http://gpu-box:8470", "false")).ok());
}

}  // namespace
}  // namespace dlp
