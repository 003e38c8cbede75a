// Device and pinned memory, copies and streams through the CUDA runtime.
#include <cuda_runtime_api.h>

#include <string>
#include <utility>

#include "device_memory_info.hpp"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/cuda_check.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/stream.hpp"

namespace rsw {
namespace detail {
namespace {

std::string describe_allocation(std::size_t bytes) {
  std::string text = "allocating " + describe_bytes(bytes) + " of device memory";
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
    text += " (" + describe_bytes(free_bytes) + " free of " + describe_bytes(total_bytes) + ")";
  }
  cudaGetLastError();
  return text;
}

}  // namespace

void* device_allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  const CudaRuntimeInfo& cuda = cuda_runtime_info();
  if (!cuda.available()) {  // say so, rather than pass on what cudaMalloc makes of it
    throw Error(ErrorKind::DeviceUnavailable, "allocating " + describe_bytes(bytes) +
                                                  " of device memory: there is no usable GPU (" +
                                                  cuda.unavailable_reason + ")");
  }
  void* pointer = nullptr;
  RSW_CUDA_CHECK(cudaMalloc(&pointer, bytes), describe_allocation(bytes));
  return pointer;
}

DeviceMemoryInfo current_device_memory() noexcept {
  if (!cuda_runtime_info().available()) return {};
  DeviceMemoryInfo info;
  if (cudaMemGetInfo(&info.free_bytes, &info.total_bytes) != cudaSuccess) {
    cudaGetLastError();
    return {};
  }
  return info;
}

void device_free(void* pointer) noexcept {
  if (pointer != nullptr) cudaFree(pointer);
}

void* pinned_allocate(std::size_t bytes) {
  if (!cuda_runtime_info().available()) return nullptr;
  void* pointer = nullptr;
  if (cudaMallocHost(&pointer, bytes) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return pointer;
}

void pinned_free(void* pointer) noexcept {
  if (pointer != nullptr) cudaFreeHost(pointer);
}

void copy_host_to_device(void* device, const void* host, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  RSW_CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream),
                 "copying " + describe_bytes(bytes) + " from host to device");
}

void copy_device_to_host(void* host, const void* device, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  RSW_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream),
                 "copying " + describe_bytes(bytes) + " from device to host");
}

void copy_device_to_device(void* target, const void* source, std::size_t bytes,
                           StreamHandle stream) {
  if (bytes == 0) return;
  RSW_CUDA_CHECK(cudaMemcpyAsync(target, source, bytes, cudaMemcpyDeviceToDevice, stream),
                 "copying " + describe_bytes(bytes) + " within device memory");
}

void fill_bytes_zero(void* device, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  RSW_CUDA_CHECK(cudaMemsetAsync(device, 0, bytes, stream),
                 "zeroing " + describe_bytes(bytes) + " of device memory");
}

}  // namespace detail

Stream::Stream(StreamOrder order) {
  resolve_backend(Backend::Cuda);  // a clear error instead of a bare CUDA status
  const unsigned int flags =
      order == StreamOrder::Independent ? cudaStreamNonBlocking : cudaStreamDefault;
  RSW_CUDA_CHECK(cudaStreamCreateWithFlags(&handle_, flags), "creating a stream");
}

Stream::~Stream() {
  if (handle_ != nullptr) cudaStreamDestroy(handle_);
}

Stream::Stream(Stream&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) cudaStreamDestroy(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

void Stream::synchronize() const {
  rsw::synchronize(handle_);
}

void synchronize(StreamHandle stream) {
  RSW_CUDA_CHECK(cudaStreamSynchronize(stream), "waiting for a stream");
}

void order_after(StreamHandle consumer, StreamHandle producer) {
  if (consumer == producer) return;
  // Destroying the event once the wait is queued is allowed: the wait still holds.
  struct OwnedEvent {
    cudaEvent_t event = nullptr;
    ~OwnedEvent() {
      if (event != nullptr) cudaEventDestroy(event);
    }
  } owned;
  RSW_CUDA_CHECK(cudaEventCreateWithFlags(&owned.event, cudaEventDisableTiming),
                 "creating an event to order two streams");
  RSW_CUDA_CHECK(cudaEventRecord(owned.event, producer), "recording an event on a stream");
  RSW_CUDA_CHECK(cudaStreamWaitEvent(consumer, owned.event, 0), "ordering a stream after another");
}

}  // namespace rsw
