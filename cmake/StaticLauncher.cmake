# dlp-run starts once for every job, so its start-up is on every job's path from
# Queued to Running. Loading and relocating Debian's shared Abseil (about 30
# libraries) and libstdc++ doubled its CPU time per start (bench/history/RESULTS-2026.md,
# "On a quiet machine, and a leaner start and reap path"); the launcher links
# their archives instead, and keeps libc and libm shared. Sanitized builds keep
# the shared libraries: the sanitizer runtimes expect them.
function(dlp_link_launcher_statically target)
  # The launcher calls nothing of CUDA's: --as-needed leaves those libraries
  # (and, below, the shared Abseil) out of its NEEDED list, so it needs no
  # RUNPATH, whose build-time padding would also search the working directory.
  target_link_options(${target} PRIVATE -Wl,--as-needed)
  set_target_properties(${target} PROPERTIES SKIP_BUILD_RPATH ON)
  if(DLP_SANITIZE)
    return()
  endif()
  find_library(DLP_ABSL_BASE_ARCHIVE NAMES libabsl_base.a)
  if(NOT DLP_ABSL_BASE_ARCHIVE)
    message(STATUS "dlp-run: no Abseil archives (libabsl_base.a); linking the shared libraries")
    return()
  endif()
  get_filename_component(absl_dir "${DLP_ABSL_BASE_ARCHIVE}" DIRECTORY)
  file(GLOB absl_archives "${absl_dir}/libabsl_*.a")
  # After the launcher's own archives and before the shared Abseil that their
  # usage requirements add: every Abseil symbol resolves here.
  get_target_property(own ${target} LINK_LIBRARIES)
  set_target_properties(${target} PROPERTIES LINK_LIBRARIES
    "${own};-Wl,--start-group;${absl_archives};-Wl,--end-group")
  target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
endfunction()
