// Boxes on the host as the CPU backends keep them: structure-of-arrays with the effective
// filter bits (invalid boxes excluded by a category of 0); their loading, which validates
// them, and the summary a frame plan is made from.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "frame_plan.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/physics/broad_phase.hpp"
#include "sweep_backend.hpp"

namespace rsw::physics::detail {

struct HostBoxes {
  std::array<std::vector<float>, 3> min;  // [axis][box]
  std::array<std::vector<float>, 3> max;
  std::vector<std::uint32_t> categories;  // 0 for an excluded box: it pairs with nothing
  std::vector<std::uint32_t> masks;
  std::vector<std::uint32_t> worlds;  // empty: every box in world 0

  std::size_t size() const noexcept { return min[0].size(); }
  /// Whether boxes i and j may pair by their worlds.
  bool worlds_meet(std::size_t i, std::size_t j) const noexcept {
    return worlds.empty() || physics::worlds_meet(worlds[i], worlds[j]);
  }
};

/// Copies a frame's boxes and filter bits into `out` (downloading device arrays), checking
/// them on up to `threads` threads (0: one per hardware thread). Returns the number of boxes
/// excluded; with InvalidBoxes::Reject the first invalid box throws rsw::Error naming it. A
/// world id out of range throws rsw::Error naming the first (see world_out_of_range).
std::size_t load_boxes(const BoxSource& boxes, InvalidBoxes policy, HostBoxes& out,
                       int threads = 0);

/// The error for a box whose world id is neither at most kMaxWorld nor kAllWorlds.
Error world_out_of_range(std::size_t index, std::uint32_t world);

/// The message for invalid box `index`: "box 7 has min > max on y (2.000000 > 1.000000)".
std::string describe_invalid_box(std::size_t index, const float (&low)[3], const float (&high)[3]);

/// The BoxSummary of the valid boxes (category != 0) and of the excluded ones, on up to
/// `threads` threads; the same sums whatever their number.
BoxSummary summarize(const HostBoxes& boxes, int threads = 0);

}  // namespace rsw::physics::detail
