# The dlp Python package's extension module (python/, docs/python.md), built
# where pybind11 (Debian's pybind11-dev) and Python's headers are found and the
# build is not sanitized (a plain python3 cannot load an instrumented module).
# DLP_PYTHON_VENV: the project's virtual environment (scripts/deps/install-python.sh,
# which scripts/build.sh passes): its Python builds the module and runs the
# package's tests (tests/python/).
set(DLP_WITH_PYTHON AUTO CACHE STRING "Build the Python package's module: AUTO, ON or OFF")
set_property(CACHE DLP_WITH_PYTHON PROPERTY STRINGS AUTO ON OFF)
set(DLP_PYTHON_VENV "" CACHE PATH "The virtual environment with pytest that runs tests/python")
set(DLP_HAVE_PYTHON OFF)
if(DLP_WITH_PYTHON AND NOT DLP_SANITIZE)
  # Also in a build folder configured before the venv existed: the module must
  # be the one the tests' Python imports.
  if(DLP_PYTHON_VENV AND EXISTS ${DLP_PYTHON_VENV}/bin/python)
    set(Python_EXECUTABLE ${DLP_PYTHON_VENV}/bin/python CACHE FILEPATH "" FORCE)
  endif()
  if(DLP_WITH_PYTHON STREQUAL "ON")
    find_package(Python 3.9 COMPONENTS Interpreter Development.Module REQUIRED)
    find_package(pybind11 2.10 CONFIG REQUIRED)
  else()
    find_package(Python 3.9 COMPONENTS Interpreter Development.Module)
    find_package(pybind11 2.10 CONFIG QUIET)
  endif()
  if(Python_FOUND AND pybind11_FOUND)
    set(DLP_HAVE_PYTHON ON)
    add_subdirectory(python)
  else()
    message(STATUS "dlp Python package: not built (needs pybind11-dev and python3-dev)")
  endif()
endif()
