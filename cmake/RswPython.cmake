# The Python module's dependencies, and RSW_BUILD_PYTHON: on by default where the interpreter
# it targets has its headers and NumPy and pybind11 is found (Debian's python3-dev,
# python3-numpy, pybind11-dev; scripts/setup installs them). The interpreter is
# Python3_EXECUTABLE: Debian's /usr/bin/python3 unless named, since the `python3` first on a
# PATH may be another install that lacks those packages. The module's file name carries that
# interpreter's suffix (_radixsweep.cpython-311-x86_64-linux-gnu.so).
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python the module is built for")
endif()
find_package(Python3 COMPONENTS Interpreter Development.Module NumPy QUIET)
# pybind11 finds the same interpreter through CMake's FindPython.
set(PYBIND11_FINDPYTHON ON)
set(Python_EXECUTABLE ${Python3_EXECUTABLE})
find_package(pybind11 2.10 CONFIG QUIET)

set(rsw_python_missing)
if(NOT Python3_Development.Module_FOUND)
  list(APPEND rsw_python_missing "Python's headers (python3-dev)")
endif()
if(NOT Python3_NumPy_FOUND)
  list(APPEND rsw_python_missing "NumPy (python3-numpy)")
endif()
if(NOT pybind11_FOUND)
  list(APPEND rsw_python_missing "pybind11 (pybind11-dev)")
endif()
if(rsw_python_missing)
  set(rsw_python_default OFF)
else()
  set(rsw_python_default ${PROJECT_IS_TOP_LEVEL})
endif()
option(RSW_BUILD_PYTHON "Build the Python module radixsweep (needs Python's headers, NumPy and pybind11)"
       ${rsw_python_default})
if(RSW_BUILD_PYTHON)
  if(rsw_python_missing)
    list(JOIN rsw_python_missing ", " missing)
    message(FATAL_ERROR "RSW_BUILD_PYTHON is on, but ${Python3_EXECUTABLE} lacks ${missing}: "
                        "scripts/setup installs them, or name another Python3_EXECUTABLE")
  endif()
  # The libraries are linked into the module, a shared object.
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  message(STATUS "Python module for ${Python3_EXECUTABLE} (Python ${Python3_VERSION})")
elseif(rsw_python_missing)
  list(JOIN rsw_python_missing ", " missing)
  message(STATUS "No Python module: ${Python3_EXECUTABLE} lacks ${missing}")
endif()
