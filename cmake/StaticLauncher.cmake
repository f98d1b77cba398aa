# dlp-run starts once for every job, so its start-up is on every job's path from
# Queued to Running. Loading and relocating Debian's shared Abseil (about 30
# libraries) and libstdc++ doubled its CPU time per start (bench/RESULTS.md,
# "A static launcher"); the launcher links their archives instead, and keeps
# libc and libm shared. Sanitized builds keep the shared libraries: the
# sanitizer runtimes expect them.
function(dlp_link_launcher_statically target)
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
  # usage requirements add: every Abseil symbol resolves here, and
  # --as-needed leaves the shared copies (and CUDA's, which the launcher does
  # not call) out of the executable's NEEDED list.
  get_target_property(own ${target} LINK_LIBRARIES)
  set_target_properties(${target} PROPERTIES LINK_LIBRARIES
    "${own};-Wl,--start-group;${absl_archives};-Wl,--end-group")
  target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc -Wl,--as-needed)
  # Nothing is left to find at run time outside the system's directories: no
  # build RPATH, whose padding would also search the working directory.
  set_target_properties(${target} PROPERTIES SKIP_BUILD_RPATH ON)
endfunction()
