// CUDA events for the stage profiler, behind plain functions so profiler.cpp needs no CUDA
// header. A CPU-only build defines them to throw (they are only reached for Backend::Cuda).
#pragma once

#include "rsw/engine/stream.hpp"

namespace rsw::detail {

EventHandle create_timing_event();
void destroy_event(EventHandle event) noexcept;
void record_event(EventHandle event, StreamHandle stream);
/// True once all work before the event's record has finished; never blocks.
bool event_completed(EventHandle event);
void wait_for_event(EventHandle event);
/// Milliseconds between two completed events.
double elapsed_ms(EventHandle start, EventHandle stop);

}  // namespace rsw::detail
