# DLP_WITH_CUDA=AUTO builds the CUDA and NCCL parts when a toolkit is found
# under DLP_CUDA_ROOT (scripts/build.sh points it at the toolkit that
# scripts/deps/install-cuda.sh lays out from NVIDIA's wheels); ON requires it;
# OFF never looks.
set(DLP_CUDA_ROOT /usr/local/cuda CACHE PATH "The CUDA toolkit: bin/nvcc, include/, lib64/")
set(DLP_HAVE_CUDA 0)
set(DLP_HAVE_NCCL 0)
if(NOT DLP_WITH_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS ${DLP_CUDA_ROOT}/bin/nvcc)
    set(CMAKE_CUDA_COMPILER ${DLP_CUDA_ROOT}/bin/nvcc)
    set(CUDAToolkit_ROOT ${DLP_CUDA_ROOT})
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)  # H100/H200; override on the command line
    endif()
    # nvcc with this CMake knows dialects up to C++17; CUDA sources stay at 17.
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    enable_language(CUDA)
    # CMake 3.25's FindCUDAToolkit tags CUDA::nvToolsExt as deprecated when the
    # project requires 3.25, without checking that the toolkit has it (12 and
    # later do not): it is asked as a project of 3.24 would ask.
    set(dlp_minimum_version ${CMAKE_MINIMUM_REQUIRED_VERSION})
    set(CMAKE_MINIMUM_REQUIRED_VERSION 3.24)
    find_package(CUDAToolkit REQUIRED)
    set(CMAKE_MINIMUM_REQUIRED_VERSION ${dlp_minimum_version})
    set(DLP_HAVE_CUDA 1)
    find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
    find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
    if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
      set(DLP_HAVE_NCCL 1)
      add_library(dlp_nccl INTERFACE)
      target_include_directories(dlp_nccl INTERFACE ${NCCL_INCLUDE_DIR})
      target_link_libraries(dlp_nccl INTERFACE ${NCCL_LIBRARY})
    endif()
  elseif(DLP_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "DLP_WITH_CUDA=ON but no CUDA compiler was found")
  endif()
endif()
message(STATUS "dlp: CUDA ${DLP_HAVE_CUDA}, NCCL ${DLP_HAVE_NCCL}")

# An installed program that links CUDA's libraries finds them where it was
# built against them (/usr/local/cuda/lib is rarely in ld.so.conf), and the
# build tree's copy uses the same RUNPATH as is: CMake's padding of a build
# RUNPATH for the install-time rewrite adds an empty entry, which the loader
# takes as the working directory (a job's).
function(dlp_cuda_runpath target)
  if(NOT DLP_HAVE_CUDA)
    return()
  endif()
  set(dirs ${CUDAToolkit_LIBRARY_DIR})
  if(NCCL_LIBRARY)
    get_filename_component(nccl_dir "${NCCL_LIBRARY}" DIRECTORY)
    list(APPEND dirs "${nccl_dir}")
  endif()
  list(REMOVE_DUPLICATES dirs)
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "${dirs}" BUILD_WITH_INSTALL_RPATH ON)
endfunction()
