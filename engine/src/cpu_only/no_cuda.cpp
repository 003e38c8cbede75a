// A build without a CUDA compiler: the engine reports that GPU code was not built, and every
// device operation throws rsw::Error(DeviceUnavailable). resolve_backend() never picks Cuda
// here, so only a caller that insists on the GPU reaches these.
#include <string>

#include "device_memory_info.hpp"
#include "gpu_events.hpp"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/cuda_check.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/stream.hpp"

namespace rsw {
namespace {

constexpr const char* kNoCuda =
    "this build of RadixSweep has no GPU code (it was configured "
    "without CUDA)";

[[noreturn]] void throw_no_cuda(std::string_view doing) {
  throw Error(ErrorKind::DeviceUnavailable, std::string(doing) + ": " + kNoCuda);
}

}  // namespace

const CudaRuntimeInfo& cuda_runtime_info() {
  static const CudaRuntimeInfo info{.unavailable_reason = kNoCuda};
  return info;
}

void use_cuda_device(int) {
  throw_no_cuda("selecting a CUDA device");
}

int current_cuda_device() {
  throw_no_cuda("asking for the current CUDA device");
}

Stream::Stream(StreamOrder) {
  throw_no_cuda("creating a CUDA stream");
}
Stream::~Stream() = default;
Stream::Stream(Stream&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
Stream& Stream::operator=(Stream&& other) noexcept {
  handle_ = std::exchange(other.handle_, nullptr);
  return *this;
}
void Stream::synchronize() const {}
void synchronize(StreamHandle) {}  // nothing can be queued without CUDA
void order_after(StreamHandle, StreamHandle) {}

namespace detail {

void throw_cuda_error(int status, const char* call, const char* file, int line,
                      std::string_view doing) {
  throw Error(ErrorKind::Cuda,
              std::string(doing) + ": " + call + " failed at " + file + ":" + std::to_string(line) +
                  ": CUDA status " + std::to_string(status),
              status);
}

void* device_allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  throw_no_cuda("allocating " + describe_bytes(bytes) + " of device memory");
}
void device_free(void*) noexcept {}
DeviceMemoryInfo current_device_memory() noexcept {
  return {};
}
void* pinned_allocate(std::size_t) {
  return nullptr;
}
void pinned_free(void*) noexcept {}
void copy_host_to_device(void*, const void*, std::size_t bytes, StreamHandle) {
  if (bytes != 0) throw_no_cuda("copying from host to device");
}
void copy_device_to_host(void*, const void*, std::size_t bytes, StreamHandle) {
  if (bytes != 0) throw_no_cuda("copying from device to host");
}
void copy_device_to_device(void*, const void*, std::size_t bytes, StreamHandle) {
  if (bytes != 0) throw_no_cuda("copying within device memory");
}
void copy_small_by_kernel(void*, const void*, std::size_t bytes, StreamHandle) {
  if (bytes != 0) throw_no_cuda("copying by a kernel");
}
void fill_bytes_zero(void*, std::size_t bytes, StreamHandle) {
  if (bytes != 0) throw_no_cuda("zeroing device memory");
}

EventHandle create_timing_event() {
  throw_no_cuda("creating a timing event");
}
void destroy_event(EventHandle) noexcept {}
void record_event(EventHandle, StreamHandle) {
  throw_no_cuda("recording a timing event");
}
bool event_completed(EventHandle) {
  throw_no_cuda("polling a timing event");
}
void wait_for_event(EventHandle) {
  throw_no_cuda("waiting for a timing event");
}
double elapsed_ms(EventHandle, EventHandle) {
  throw_no_cuda("reading a timing event");
}

}  // namespace detail
}  // namespace rsw
