// For tests only: DLPD_TEST_CRASH_AT=POINT makes dlpd SIGKILL itself at that
// point, as a crash there would. Unset in any real use. The points:
//   after-starting, after-spawn (controller_loop.cc): a start committed, dlp-run spawned;
//   sweep-before-submit, sweep-after-submit (sweep_controller.cc): a sweep's
//   second trial recorded but its job not submitted, or submitted but the
//   trial not yet updated.
// Tests: dlpd_start_integration_test.cc, dlpd_sweeps_integration_test.cc.
#pragma once

namespace dlp::server {

void CrashPointForTests(const char* point);

}  // namespace dlp::server
