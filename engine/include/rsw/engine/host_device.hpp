// RSW_HOST_DEVICE: marks a function that both the CPU code and the GPU kernels call, so that
// one definition serves both (nvcc compiles it for each; a host compiler sees a plain
// function).
#pragma once

#if defined(__CUDACC__)
#define RSW_HOST_DEVICE __host__ __device__
#else
#define RSW_HOST_DEVICE
#endif
