# Sanitized builds (CONTRIBUTING.md, "Sanitizers and fuzzing"); each in its own build folder.
#   DLP_SANITIZE=address,undefined   ASan+UBSan on the whole tree (scripts/test.sh --sanitize)
#   DLP_SANITIZE=thread              TSan, for the collectives and rendezvous tests
#   DLP_FUZZ=ON                      the libFuzzer targets of bench/fuzz (clang only), under
#                                    ASan+UBSan unless DLP_SANITIZE says otherwise
set(DLP_SANITIZE "" CACHE STRING "-fsanitize= list for the whole tree; empty: none")
option(DLP_FUZZ "Build the libFuzzer targets in bench/fuzz (clang)" OFF)

if(DLP_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "DLP_FUZZ=ON needs clang (CC=clang CXX=clang++): libFuzzer is clang's")
  endif()
  if(NOT DLP_SANITIZE)
    set(DLP_SANITIZE address,undefined)
  endif()
  # Coverage for every library the fuzz targets link; the targets add -fsanitize=fuzzer.
  add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link>)
endif()

if(DLP_SANITIZE)
  # A sanitizer report fails the program (no recovery), with whole stacks; its
  # frames need only line tables, which build faster than full debug information.
  add_compile_options(
    $<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=${DLP_SANITIZE}>
    $<$<COMPILE_LANGUAGE:C,CXX>:-fno-sanitize-recover=all>
    $<$<COMPILE_LANGUAGE:C,CXX>:-fno-omit-frame-pointer>
    $<$<COMPILE_LANGUAGE:C,CXX>:-gline-tables-only>)
  add_link_options(-fsanitize=${DLP_SANITIZE})
endif()
