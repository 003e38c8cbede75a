// The events between two steps of a world: which pairs began overlapping (found) and which
// ended (lost), as the difference of the two steps' pair sets. Both sets are sorted by (a, b)
// and hold each pair once, so the difference is a merge, on the host (std::set_difference)
// or on the device (find_pair_events_on_device), with no host round trip per pair.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/physics/aabb.hpp"

namespace rsw::physics::detail {

/// found = current \ previous and lost = previous \ current, each sorted by (a, b). Both
/// inputs must be sorted by (a, b) without repeats.
void find_pair_events(std::span<const Pair> previous, std::span<const Pair> current,
                      std::vector<Pair>& found, std::vector<Pair>& lost);

/// The events of one difference on the device, valid until the next find().
struct DevicePairEventView {
  DeviceSpan<const Pair> found;
  DeviceSpan<const Pair> lost;
};

/// find_pair_events on the device. Its buffers grow to the largest sets it has seen and are
/// kept: a world in its steady state allocates nothing here.
class DevicePairEvents {
 public:
  virtual ~DevicePairEvents() = default;
  /// Queues the difference of two sets in device memory on `stream` (sorted by (a, b),
  /// without repeats, ready in the stream's order) and returns without waiting.
  virtual void find(DeviceSpan<const Pair> previous, DeviceSpan<const Pair> current,
                    StreamHandle stream) = 0;
  /// Waits for the last find()'s stream and returns its events.
  virtual DevicePairEventView read() = 0;
};

/// Throws rsw::Error(DeviceUnavailable) without a usable device or GPU code.
std::unique_ptr<DevicePairEvents> make_device_pair_events();

}  // namespace rsw::physics::detail
