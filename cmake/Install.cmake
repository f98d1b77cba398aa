# cmake --install: programs, libraries, public headers, find_package(dlp) and
# pkg-config files, man pages and shell completions where Debian puts them.
include(CMakePackageConfigHelpers)

foreach(program dlp_cli dlpd dlp-run fmnist-train)
  if(TARGET ${program})
    install(TARGETS ${program} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()

# The https:// transport libdlp opens on first use (libdlp/src/http/https_module.h).
install(TARGETS dlp_https LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The chart module (libdlp/src/profile/chart_module.h), where Cairo was found.
if(TARGET dlp_chart)
  install(TARGETS dlp_chart LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(TARGETS dlp dlp_runtime dlp_contract dlp_base EXPORT dlpTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY libdlp/include/dlp runtime/include/dlp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(EXPORT dlpTargets NAMESPACE dlp:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/dlp)

configure_package_config_file(cmake/dlpConfig.cmake.in
  ${CMAKE_BINARY_DIR}/dlpConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/dlp)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/dlpConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/dlpConfig.cmake ${CMAKE_BINARY_DIR}/dlpConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/dlp)

# dlp.pc names its prefix relative to itself, so that `cmake --install --prefix P`
# (which can differ from CMAKE_INSTALL_PREFIX) still yields a working file.
file(RELATIVE_PATH DLP_PC_PREFIX_FROM_PCDIR "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
set(DLP_PC_EXTRA_LIBS "")
if(DLP_HAVE_CUDA)
  # The toolkit's folder is rarely in ld.so.conf (a wheel's never is): the
  # program finds the runtime where dlp was built against it, as dlp's own do.
  string(APPEND DLP_PC_EXTRA_LIBS
         " -L${CUDAToolkit_LIBRARY_DIR} -Wl,-rpath,${CUDAToolkit_LIBRARY_DIR} -lcudart")
  if(DLP_HAVE_NCCL)
    string(APPEND DLP_PC_EXTRA_LIBS " ${NCCL_LIBRARY}")
  endif()
endif()
configure_file(cmake/dlp.pc.in ${CMAKE_BINARY_DIR}/dlp.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/dlp.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

foreach(section 1 5 7 8)
  file(GLOB pages CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/man/*.${section})
  if(pages)
    install(FILES ${pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
  endif()
endforeach()
if(EXISTS ${CMAKE_SOURCE_DIR}/completions/dlp.bash)
  install(FILES completions/dlp.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME dlp)
endif()
if(EXISTS ${CMAKE_SOURCE_DIR}/completions/_dlp)
  install(FILES completions/_dlp DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
endif()
if(EXISTS ${CMAKE_SOURCE_DIR}/completions/dlp.fish)
  install(FILES completions/dlp.fish DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
endif()
