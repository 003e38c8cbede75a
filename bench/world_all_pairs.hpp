// The baseline of the worlds benchmark: every pair of boxes inside each world tested on the
// GPU, one block a world, the world's boxes staged in shared memory a tile at a time. What a
// simulator of many small environments runs when it skips the broad phase. Built only with
// CUDA.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/physics/aabb.hpp"
#include "rsw/physics/broad_phase.hpp"

namespace rsw::bench {

class WorldAllPairs {
 public:
  /// The pairs of `boxes`, whose world w holds boxes [offsets[w], offsets[w + 1]) (`worlds`
  /// + 1 device offsets; none holds more than `largest_world`), into a buffer that grows to
  /// the count (then the tests run again). Waits for the count; returns it.
  std::size_t run(const physics::DeviceAabbArrays& boxes, const std::uint32_t* offsets,
                  std::uint32_t worlds, std::uint32_t largest_world, StreamHandle stream);
  /// The last run's pairs (global box indices, a < b), in no particular order.
  DeviceSpan<const physics::Pair> pairs() const { return {pairs_.data(), count_}; }

 private:
  DeviceBuffer<physics::Pair> pairs_;
  DeviceBuffer<unsigned long long> device_count_;
  PinnedBuffer<unsigned long long> host_count_{1};
  std::size_t count_ = 0;
};

}  // namespace rsw::bench
