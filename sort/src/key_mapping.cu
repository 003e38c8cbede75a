// Device side of the key mapping. The scalar mappings are the constexpr functions of
// key_mapping.hpp, called from device code (--expt-relaxed-constexpr), so host and device map
// bit for bit alike.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <limits>
#include <string>

#include "rsw/engine/cuda_check.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/sort/key_mapping.hpp"

namespace rsw::sort {
namespace {

constexpr int kThreads = 256;
constexpr unsigned long long kNoNan = std::numeric_limits<unsigned long long>::max();

// One thread per element; a NaN's index goes into *first_nan by atomicMin.
__global__ void map_float_keys_kernel(const float* values, std::uint32_t* keys, std::size_t count,
                                      unsigned long long* first_nan) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const float value = values[i];
    if (isnan(value)) atomicMin(first_nan, static_cast<unsigned long long>(i));
    keys[i] = ordered_key(value);
  }
}

template <class Input, class Output, class Function>
__global__ void transform_kernel(const Input* inputs, Output* outputs, std::size_t count,
                                 Function function) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    outputs[i] = function(inputs[i]);
  }
}

unsigned int blocks_for(std::size_t count) {
  const std::size_t wanted = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned int>(wanted < 65536 ? wanted : 65536);
}

void require_same_size(std::size_t inputs, std::size_t outputs, const char* what) {
  if (inputs != outputs) {
    throw Error(ErrorKind::InvalidArgument, std::string(what) + ": " + std::to_string(inputs) +
                                                " inputs but room for " + std::to_string(outputs) +
                                                " outputs");
  }
}

template <class Input, class Output, class Function>
void transform(DeviceSpan<const Input> inputs, DeviceSpan<Output> outputs, StreamHandle stream,
               const char* what, Function function) {
  require_same_size(inputs.size, outputs.size, what);
  if (inputs.empty()) return;
  transform_kernel<<<blocks_for(inputs.size), kThreads, 0, stream>>>(inputs.data, outputs.data,
                                                                     inputs.size, function);
  RSW_CUDA_CHECK_LAUNCH(std::string("launching ") + what);
}

struct FloatFromKey {
  __device__ float operator()(std::uint32_t key) const { return float_from_key(key); }
};
struct KeyFromInt {
  __device__ std::uint32_t operator()(std::int32_t value) const { return ordered_key(value); }
};
struct IntFromKey {
  __device__ std::int32_t operator()(std::uint32_t key) const { return int_from_key(key); }
};

}  // namespace

void map_float_keys(DeviceSpan<const float> values, DeviceSpan<std::uint32_t> keys,
                    StreamHandle stream) {
  require_same_size(values.size, keys.size, "map_float_keys");
  if (values.empty()) return;
  // Stream-ordered allocation of the 8-byte flag: pooled by the driver, no device-wide sync.
  unsigned long long* first_nan = nullptr;
  RSW_CUDA_CHECK(cudaMallocAsync(&first_nan, sizeof *first_nan, stream),
                 "allocating the NaN flag of map_float_keys");
  unsigned long long found = kNoNan;
  RSW_CUDA_CHECK(cudaMemcpyAsync(first_nan, &found, sizeof found, cudaMemcpyHostToDevice, stream),
                 "clearing the NaN flag of map_float_keys");
  map_float_keys_kernel<<<blocks_for(values.size), kThreads, 0, stream>>>(values.data, keys.data,
                                                                          values.size, first_nan);
  RSW_CUDA_CHECK_LAUNCH("launching map_float_keys");
  RSW_CUDA_CHECK(cudaMemcpyAsync(&found, first_nan, sizeof found, cudaMemcpyDeviceToHost, stream),
                 "reading the NaN flag of map_float_keys");
  RSW_CUDA_CHECK(cudaFreeAsync(first_nan, stream), "freeing the NaN flag of map_float_keys");
  RSW_CUDA_CHECK(cudaStreamSynchronize(stream), "waiting for map_float_keys");
  if (found != kNoNan) {
    throw Error(ErrorKind::InvalidArgument,
                "map_float_keys: value " + std::to_string(found) + " is NaN, which has no order");
  }
}

void unmap_float_keys(DeviceSpan<const std::uint32_t> keys, DeviceSpan<float> values,
                      StreamHandle stream) {
  transform(keys, values, stream, "unmap_float_keys", FloatFromKey{});
}

void map_int_keys(DeviceSpan<const std::int32_t> values, DeviceSpan<std::uint32_t> keys,
                  StreamHandle stream) {
  transform(values, keys, stream, "map_int_keys", KeyFromInt{});
}

void unmap_int_keys(DeviceSpan<const std::uint32_t> keys, DeviceSpan<std::int32_t> values,
                    StreamHandle stream) {
  transform(keys, values, stream, "unmap_int_keys", IntFromKey{});
}

}  // namespace rsw::sort
