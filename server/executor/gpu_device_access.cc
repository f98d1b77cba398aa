#include "server/executor/gpu_device_access.h"

#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/scheduler/gpu_inventory.h"

namespace dlp::server {

std::vector<int> PlacedGpuMinors(const std::vector<ReplicaPlacement>& placement,
                                 const std::vector<GpuDevice>& devices) {
  std::vector<int> minors;
  for (const ReplicaPlacement& replica : placement) {
    for (const GpuShare& share : replica.gpus) {
      auto known = std::find_if(devices.begin(), devices.end(),
                                [&](const GpuDevice& d) { return d.id == share.device; });
      int minor = -1;
      if (known != devices.end()) {
        minor = known->minor;
      } else if (!absl::SimpleAtoi(share.device, &minor)) {
        minor = -1;
      }
      if (minor >= 0 && minor <= kMaxGpuMinor) minors.push_back(minor);
    }
  }
  std::sort(minors.begin(), minors.end());
  minors.erase(std::unique(minors.begin(), minors.end()), minors.end());
  return minors;
}

std::string DescribeGpuNodes(const std::vector<int>& allowed_minors) {
  if (allowed_minors.empty()) return "no GPU device";
  return absl::StrCat("GPU devices ",
                      absl::StrJoin(allowed_minors, ", ",
                                    [](std::string* out, int minor) {
                                      absl::StrAppend(out, "/dev/nvidia", minor);
                                    }),
                      " only");
}

std::vector<std::string> GpuDenyRules(const std::vector<int>& allowed_minors) {
  std::vector<std::string> rules;
  for (int minor = 0; minor <= kMaxGpuMinor; ++minor) {
    if (std::binary_search(allowed_minors.begin(), allowed_minors.end(), minor)) continue;
    rules.push_back(absl::StrCat("c ", kNvidiaMajor, ":", minor, " rwm"));
  }
  return rules;
}

namespace {

bpf_insn Instruction(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
  bpf_insn insn{};
  insn.code = code;
  insn.dst_reg = dst;
  insn.src_reg = src;
  insn.off = off;
  insn.imm = imm;
  return insn;
}

// r2 = the u32 at `offset` of the context (struct bpf_cgroup_dev_ctx).
bpf_insn LoadContextField(int16_t offset) {
  return Instruction(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_2, BPF_REG_1, offset, 0);
}

bpf_insn Return(int32_t value) { return Instruction(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, value); }

}  // namespace

std::vector<bpf_insn> GpuDeviceProgram(const std::vector<int>& allowed_minors) {
  // Jumps to "allow" are written with the index of their target and turned
  // into relative offsets once the program's length is known.
  std::vector<bpf_insn> program;
  std::vector<size_t> to_allow;
  auto jump_to_allow = [&](uint8_t op, int32_t value) {
    to_allow.push_back(program.size());
    program.push_back(Instruction(BPF_JMP | op | BPF_K, BPF_REG_2, 0, 0, value));
  };
  program.push_back(LoadContextField(offsetof(bpf_cgroup_dev_ctx, access_type)));
  program.push_back(Instruction(BPF_ALU | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xFFFF));  // the type
  jump_to_allow(BPF_JNE, BPF_DEVCG_DEV_CHAR);
  program.push_back(LoadContextField(offsetof(bpf_cgroup_dev_ctx, major)));
  jump_to_allow(BPF_JNE, kNvidiaMajor);
  program.push_back(LoadContextField(offsetof(bpf_cgroup_dev_ctx, minor)));
  jump_to_allow(BPF_JGT, kMaxGpuMinor);  // nvidiactl, nvidia-modeset
  for (int minor : allowed_minors) jump_to_allow(BPF_JEQ, minor);
  program.push_back(Return(0));
  program.push_back(Instruction(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
  const size_t allow = program.size();
  program.push_back(Return(1));
  program.push_back(Instruction(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
  for (size_t at : to_allow) program[at].off = static_cast<int16_t>(allow - at - 1);
  return program;
}

absl::Status AttachGpuDeviceProgram(const std::string& cgroup,
                                    const std::vector<int>& allowed_minors) {
  const std::vector<bpf_insn> program = GpuDeviceProgram(allowed_minors);
  static const char kLicense[] = "Apache-2.0";
  union bpf_attr load {};
  load.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
  load.insns = reinterpret_cast<uint64_t>(program.data());
  load.insn_cnt = static_cast<uint32_t>(program.size());
  load.license = reinterpret_cast<uint64_t>(kLicense);
  const int prog = static_cast<int>(syscall(SYS_bpf, BPF_PROG_LOAD, &load, sizeof(load)));
  if (prog < 0) {
    return absl::UnavailableError(absl::StrCat("loading the device program: ", strerror(errno)));
  }
  const int folder = open(cgroup.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder < 0) {
    const int err = errno;
    close(prog);
    return absl::UnavailableError(absl::StrCat(cgroup, ": ", strerror(err)));
  }
  union bpf_attr attach {};
  attach.target_fd = static_cast<uint32_t>(folder);
  attach.attach_bpf_fd = static_cast<uint32_t>(prog);
  attach.attach_type = BPF_CGROUP_DEVICE;
  attach.attach_flags = BPF_F_ALLOW_MULTI;
  const bool attached = syscall(SYS_bpf, BPF_PROG_ATTACH, &attach, sizeof(attach)) == 0;
  const int err = errno;
  // The attachment holds the program; the cgroup's removal releases it.
  close(folder);
  close(prog);
  if (!attached) {
    return absl::UnavailableError(
        absl::StrCat("attaching the device program to ", cgroup, ": ", strerror(err)));
  }
  return absl::OkStatus();
}

}  // namespace dlp::server
