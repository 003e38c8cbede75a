#include "gpu_events.hpp"

#include <cuda_runtime_api.h>

#include "rsw/engine/cuda_check.hpp"

namespace rsw::detail {

EventHandle create_timing_event() {
  EventHandle event = nullptr;
  RSW_CUDA_CHECK(cudaEventCreate(&event), "creating a timing event for the stage profiler");
  return event;
}

void destroy_event(EventHandle event) noexcept {
  if (event != nullptr) cudaEventDestroy(event);
}

void record_event(EventHandle event, StreamHandle stream) {
  RSW_CUDA_CHECK(cudaEventRecord(event, stream), "recording a stage-profiler event");
}

bool event_completed(EventHandle event) {
  const cudaError_t status = cudaEventQuery(event);
  if (status == cudaErrorNotReady) return false;
  RSW_CUDA_CHECK(status, "polling a stage-profiler event");
  return true;
}

void wait_for_event(EventHandle event) {
  RSW_CUDA_CHECK(cudaEventSynchronize(event), "waiting for a stage-profiler event");
}

double elapsed_ms(EventHandle start, EventHandle stop) {
  float milliseconds = 0;
  RSW_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start, stop),
                 "reading a stage time from CUDA events");
  return milliseconds;
}

}  // namespace rsw::detail
