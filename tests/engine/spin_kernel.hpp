// A kernel that keeps the GPU busy for a known wall time, to test timers against.
#pragma once

#include "rsw/engine/stream.hpp"

namespace rsw::test {

/// Queues on `stream` one single-thread kernel that spins for `milliseconds` of GPU time
/// (read from the %globaltimer nanosecond clock, so it does not depend on the SM clock).
void spin_on_gpu(double milliseconds, StreamHandle stream = nullptr);

}  // namespace rsw::test
