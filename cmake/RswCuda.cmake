# CUDA is optional. With a CUDA compiler the GPU code builds for CMAKE_CUDA_ARCHITECTURES
# (90 when unset: the H100/H200 we measure on); without one the whole project builds CPU-only.
# Sets RSW_HAVE_CUDA and, when ON, RSW_CUDART: the CUDA runtime every target links, through
# FindCUDAToolkit. Static by default (a binary then runs CPU-only where no driver is
# installed); the shared runtime in a shared build, so that the libraries share one.
include(CheckLanguage)

set(RSW_HAVE_CUDA OFF)
set(RSW_CUDA_ARCHITECTURES_SUMMARY "none")
set(RSW_NO_CUDA_REASON "RSW_ENABLE_CUDA=OFF")
if(NOT RSW_ENABLE_CUDA)
  return()
endif()

# The toolkit lives at /usr/local/cuda on our machines; it need not be on PATH.
if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
  find_program(RSW_NVCC nvcc)
  if(NOT RSW_NVCC)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
endif()

check_language(CUDA)
set(RSW_NO_CUDA_REASON "no CUDA compiler was found")
if(NOT CMAKE_CUDA_COMPILER)
  message(STATUS "No CUDA compiler found: building CPU-only")
  return()
endif()

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 90)
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)

# CMake 3.25 (Debian 12) predates its knowledge that nvcc >= 12 takes -std=c++20.
if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION
   AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()

set(CMAKE_CUDA_STANDARD 20)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
set(CMAKE_CUDA_EXTENSIONS OFF)
set(RSW_HAVE_CUDA ON)
if(BUILD_SHARED_LIBS)
  set(RSW_CUDART CUDA::cudart)
else()
  set(RSW_CUDART CUDA::cudart_static)
endif()
set(RSW_NO_CUDA_REASON "")
set(RSW_CUDA_ARCHITECTURES_SUMMARY "${CMAKE_CUDA_ARCHITECTURES}")
