// dlp top on a real pseudo-terminal: the live view shows a running job, q and
// Ctrl-C (the terminal's interrupt character) end it with exit status 0, and
// the terminal is left as it was found: screen restored, cursor shown,
// canonical mode and echo back on.
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>

#include <cerrno>
#include <optional>

#include "absl/strings/escaping.h"
#include "cli_harness.h"
#include "gmock/gmock.h"

extern char** environ;

namespace dlp::testing {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;

// A program whose stdin, stdout and stderr are the slave side of a pty, in its
// own session with that pty as controlling terminal (as a shell starts it).
// The test keeps the slave open, so that it can read the terminal's modes
// after the program exits.
class PtyProgram {
 public:
  PtyProgram(const std::vector<std::string>& argv, const RunOptions& options) {
    winsize size{};
    size.ws_row = 40;
    size.ws_col = 200;
    if (openpty(&master_, &slave_, nullptr, nullptr, &size) != 0) return;
    // Build everything the child needs before fork.
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
      std::string entry(*e);
      const std::string name = entry.substr(0, entry.find('='));
      bool drop = options.env.count(name) > 0;
      for (const std::string& u : options.unset_env) drop = drop || u == name;
      if (!drop) env.push_back(entry);
    }
    for (const auto& [k, v] : options.env) env.push_back(k + "=" + v);
    std::vector<char*> args, envp;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      setsid();
      ioctl(slave_, TIOCSCTTY, 0);
      dup2(slave_, 0);
      dup2(slave_, 1);
      dup2(slave_, 2);
      close(master_);
      if (slave_ > 2) close(slave_);
      if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(126);
      execve(args[0], args.data(), envp.data());
      _exit(127);
    }
    fcntl(master_, F_SETFL, O_NONBLOCK);
  }

  ~PtyProgram() {
    if (pid_ > 0 && !status_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (master_ >= 0) close(master_);
    if (slave_ >= 0) close(slave_);
  }

  bool started() const { return pid_ > 0; }
  const std::string& output() const { return output_; }
  int slave() const { return slave_; }

  void Send(const std::string& keys) { (void)!write(master_, keys.data(), keys.size()); }

  // Reads what the program wrote until `text` appears or `timeout` passes.
  bool WaitForOutput(const std::string& text, absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    // A program that is silent for a while (slow to start) is waited for;
    // one whose terminal closed has said all it will.
    while (output_.find(text) == std::string::npos) {
      if (absl::Now() >= deadline || Drain(absl::Milliseconds(100)) == Read::kClosed) {
        return output_.find(text) != std::string::npos;
      }
    }
    return true;
  }

  // Waits for the program to exit, reading its output meanwhile (a full pty
  // buffer would block it); the exit status, or nullopt at the deadline.
  std::optional<int> WaitExit(absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    while (!status_ && absl::Now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        status_ = status;
        break;
      }
      Drain(absl::Milliseconds(20));
    }
    if (!status_) return std::nullopt;
    while (Drain(absl::ZeroDuration()) == Read::kData) {
    }
    return WIFEXITED(*status_) ? WEXITSTATUS(*status_) : 128 + WTERMSIG(*status_);
  }

 private:
  enum class Read { kData, kNothingYet, kClosed };
  // Appends what is readable within `wait`.
  Read Drain(absl::Duration wait) {
    pollfd p{master_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(wait))) <= 0) {
      return Read::kNothingYet;
    }
    char buf[4096];
    const ssize_t n = read(master_, buf, sizeof buf);
    if (n <= 0) return errno == EAGAIN && n < 0 ? Read::kNothingYet : Read::kClosed;
    output_.append(buf, static_cast<size_t>(n));
    return Read::kData;
  }

  int master_ = -1, slave_ = -1;
  pid_t pid_ = -1;
  std::optional<int> status_;
  std::string output_;
};

class TopOnATerminal : public ::testing::TestWithParam<std::string> {};

TEST_P(TopOnATerminal, ShowsTheJobAndExitsCleanly) {
  CliEnv env;
  const std::string go = env.Work("go");
  const std::string id = env.Submit(env.WriteJob(
      "held", absl::StrCat("while [ ! -e ", go, " ]; do sleep 0.05; done"), 2, "100m"));
  ASSERT_TRUE(Eventually([&] { return env.State(id) == "Running"; }));

  termios before{};
  PtyProgram top({BinPath("dlp"), "top", "--interval", "0.5"}, env.Options());
  ASSERT_TRUE(top.started());
  ASSERT_EQ(tcgetattr(top.slave(), &before), 0);
  ASSERT_TRUE(top.WaitForOutput("worker-1", absl::Seconds(30))) << top.output();
  EXPECT_THAT(top.output(), HasSubstr("\033[?1049h"));  // the alternate screen
  EXPECT_THAT(top.output(), HasSubstr(id));
  EXPECT_THAT(top.output(), HasSubstr("1 running job(s)"));

  top.Send(GetParam());
  std::optional<int> code = top.WaitExit(absl::Seconds(10));
  ASSERT_TRUE(code.has_value()) << "dlp top did not exit on " << absl::CEscape(GetParam());
  EXPECT_EQ(*code, 0) << top.output();
  // Cursor shown and the main screen back, as the last thing written.
  EXPECT_THAT(top.output(), EndsWith("\033[?25h\033[?1049l")) << absl::CEscape(top.output());
  termios after{};
  ASSERT_EQ(tcgetattr(top.slave(), &after), 0);
  EXPECT_EQ(after.c_lflag & (ICANON | ECHO | ISIG), before.c_lflag & (ICANON | ECHO | ISIG));
  EXPECT_EQ(after.c_cc[VMIN], before.c_cc[VMIN]);

  Touch(go);
  EXPECT_EQ(env.Dlp({"wait", id}).exit_code, 0);
}

INSTANTIATE_TEST_SUITE_P(Keys, TopOnATerminal, ::testing::Values("q", "\x03"),
                         [](const auto& info) {
                           return info.param == "q" ? std::string("Q") : std::string("CtrlC");
                         });

}  // namespace
}  // namespace dlp::testing
