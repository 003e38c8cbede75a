// Boxes on the host as the CPU backends keep them: structure-of-arrays with the effective
// filter bits (invalid boxes excluded by a category of 0), plus the host helpers: loading and
// validation, the summary a frame plan is made from, pair ordering, brute force.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "frame_plan.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/physics/aabb.hpp"
#include "rsw/physics/broad_phase.hpp"
#include "sweep_backend.hpp"

namespace rsw::physics::detail {

struct HostBoxes {
  std::array<std::vector<float>, 3> min;  // [axis][box]
  std::array<std::vector<float>, 3> max;
  std::vector<std::uint32_t> categories;  // 0 for an excluded box: it pairs with nothing
  std::vector<std::uint32_t> masks;

  std::size_t size() const noexcept { return min[0].size(); }
};

/// Throws rsw::Error(InvalidArgument) unless every entry of `sizes` equals `count` and
/// `count` boxes can be indexed with 32 bits. `what` names the arrays in the message.
void check_sizes(std::size_t count, std::initializer_list<std::size_t> sizes, const char* what);

/// Throws rsw::Error(InvalidArgument) naming the first pair with an index past `bodies`.
void check_pairs(std::size_t bodies, std::span<const Pair> pairs);

/// Copies a frame's boxes and filter bits into `out` (downloading device arrays), checking
/// them on up to `threads` threads (0: one per hardware thread). Returns the number of boxes
/// excluded; with InvalidBoxes::Reject the first invalid box throws rsw::Error naming it.
std::size_t load_boxes(const BoxSource& boxes, InvalidBoxes policy, HostBoxes& out,
                       int threads = 0);

/// The message for invalid box `index`: "box 7 has min > max on y (2.000000 > 1.000000)".
std::string describe_invalid_box(std::size_t index, const float (&low)[3], const float (&high)[3]);

/// The error for a frame with more (box, cell) listings than either backend's 32-bit listing
/// indices reach.
Error too_many_listings(std::uint64_t listings);

/// The BoxSummary of the valid boxes (category != 0) and of the excluded ones, on up to
/// `threads` threads; the same sums whatever their number.
BoxSummary summarize(const HostBoxes& boxes, int threads = 0);

/// Sorts pairs by (a, b) (a stable LSD radix sort on b, then a).
void sort_pairs_lexicographically(std::vector<Pair>& pairs, sort::Sorter& sorter);

/// Every overlapping pair by testing all of them: O(n^2), the oracle of the tests.
void brute_force_pairs(const HostBoxes& boxes, std::vector<Pair>& pairs);

}  // namespace rsw::physics::detail
