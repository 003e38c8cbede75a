#include "host_boxes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "rsw/engine/error.hpp"

namespace rsw::physics::detail {
namespace {

constexpr std::uint32_t kDefaultCategory = 1;
constexpr std::uint32_t kDefaultMask = 0xFFFFFFFFu;
constexpr const char* kAxisNames = "xyz";

void check_sizes(std::size_t count, std::initializer_list<std::size_t> sizes, const char* what) {
  if (count > std::numeric_limits<std::uint32_t>::max()) {
    throw Error(ErrorKind::InvalidArgument,
                std::to_string(count) + " boxes: the broad phase indexes boxes with 32 bits");
  }
  for (const std::size_t size : sizes) {
    if (size != count) {
      throw Error(ErrorKind::InvalidArgument, std::string(what) + ": " + std::to_string(size) +
                                                  " entries for " + std::to_string(count) +
                                                  " boxes");
    }
  }
}

// Why box `index` is invalid, or nullptr if it is fine.
std::string invalid_reason(const HostBoxes& boxes, std::size_t index) {
  for (int axis = 0; axis < 3; ++axis) {
    const float low = boxes.min[axis][index];
    const float high = boxes.max[axis][index];
    if (!std::isfinite(low) || !std::isfinite(high)) {
      return std::string("a non-finite coordinate on ") + kAxisNames[axis] + " (min " +
             std::to_string(low) + ", max " + std::to_string(high) + ")";
    }
    if (low > high) {
      return std::string("min > max on ") + kAxisNames[axis] + " (" + std::to_string(low) + " > " +
             std::to_string(high) + ")";
    }
  }
  return {};
}

bool box_is_valid(const HostBoxes& boxes, std::size_t index) {
  for (int axis = 0; axis < 3; ++axis) {
    const float low = boxes.min[axis][index];
    const float high = boxes.max[axis][index];
    // Written so that NaN fails: every comparison with NaN is false.
    if (!(low <= high) || !std::isfinite(low) || !std::isfinite(high)) return false;
  }
  return true;
}

std::size_t finish_loading(FilterArrays filter, InvalidBoxes policy, HostBoxes& out) {
  const std::size_t count = out.size();
  check_sizes(count, {}, "");
  if (!filter.categories.empty()) check_sizes(count, {filter.categories.size()}, "categories");
  if (!filter.masks.empty()) check_sizes(count, {filter.masks.size()}, "masks");
  out.categories.assign(count, kDefaultCategory);
  out.masks.assign(count, kDefaultMask);
  if (!filter.categories.empty())
    out.categories.assign(filter.categories.begin(), filter.categories.end());
  if (!filter.masks.empty()) out.masks.assign(filter.masks.begin(), filter.masks.end());

  std::size_t excluded = 0;
  for (std::size_t index = 0; index < count; ++index) {
    if (box_is_valid(out, index)) continue;
    if (policy == InvalidBoxes::Reject) {
      throw Error(ErrorKind::InvalidArgument,
                  "box " + std::to_string(index) + " has " + invalid_reason(out, index));
    }
    out.categories[index] = 0;
    ++excluded;
  }
  return excluded;
}

}  // namespace

std::size_t load_boxes(std::span<const Aabb> boxes, FilterArrays filter, InvalidBoxes policy,
                       HostBoxes& out) {
  check_sizes(boxes.size(), {}, "");
  for (int axis = 0; axis < 3; ++axis) {
    out.min[axis].resize(boxes.size());
    out.max[axis].resize(boxes.size());
  }
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    out.min[0][i] = boxes[i].min.x;
    out.min[1][i] = boxes[i].min.y;
    out.min[2][i] = boxes[i].min.z;
    out.max[0][i] = boxes[i].max.x;
    out.max[1][i] = boxes[i].max.y;
    out.max[2][i] = boxes[i].max.z;
  }
  return finish_loading(filter, policy, out);
}

std::size_t load_boxes(const AabbArrays& boxes, FilterArrays filter, InvalidBoxes policy,
                       HostBoxes& out) {
  const std::size_t count = boxes.min_x.size();
  check_sizes(count,
              {boxes.min_y.size(), boxes.min_z.size(), boxes.max_x.size(), boxes.max_y.size(),
               boxes.max_z.size()},
              "AabbArrays");
  const std::array<std::span<const float>, 3> mins = {boxes.min_x, boxes.min_y, boxes.min_z};
  const std::array<std::span<const float>, 3> maxs = {boxes.max_x, boxes.max_y, boxes.max_z};
  for (int axis = 0; axis < 3; ++axis) {
    out.min[axis].assign(mins[axis].begin(), mins[axis].end());
    out.max[axis].assign(maxs[axis].begin(), maxs[axis].end());
  }
  return finish_loading(filter, policy, out);
}

int choose_axis(const HostBoxes& boxes, SweepAxis axis) {
  switch (axis) {
    case SweepAxis::X: return 0;
    case SweepAxis::Y: return 1;
    case SweepAxis::Z: return 2;
    case SweepAxis::LargestVariance: break;
  }
  // Variance of box centres, in double (Welford would be steadier; the sums are plenty for
  // choosing an axis). Excluded boxes do not count.
  std::array<double, 3> variance{};
  for (int a = 0; a < 3; ++a) {
    double sum = 0;
    double sum_of_squares = 0;
    std::size_t counted = 0;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      if (boxes.categories[i] == 0) continue;
      const double centre = 0.5 * (double{boxes.min[a][i]} + double{boxes.max[a][i]});
      sum += centre;
      sum_of_squares += centre * centre;
      ++counted;
    }
    if (counted > 0) {
      const double mean = sum / static_cast<double>(counted);
      variance[a] = sum_of_squares / static_cast<double>(counted) - mean * mean;
    }
  }
  int best = 0;
  for (int a = 1; a < 3; ++a) {
    if (variance[a] > variance[best]) best = a;
  }
  return best;
}

int CellGrid::cell_bits() const {
  int bits = 0;
  while (bits < 32 && (std::uint64_t{1} << bits) < cells())
    ++bits;
  return bits;
}

CellGrid choose_grid(const HostBoxes& boxes, int sweep_axis) {
  constexpr std::uint32_t kMaxCellsPerAxis = 2048;
  constexpr double kMeanSizesPerCell = 2.0;
  CellGrid grid;
  grid.axis_u = (sweep_axis + 1) % 3;
  grid.axis_v = (sweep_axis + 2) % 3;
  double low[2] = {INFINITY, INFINITY};
  double high[2] = {-INFINITY, -INFINITY};
  double extent_sum[2] = {0, 0};
  std::size_t counted = 0;
  const int axes[2] = {grid.axis_u, grid.axis_v};
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (boxes.categories[i] == 0) continue;
    for (int k = 0; k < 2; ++k) {
      low[k] = std::min(low[k], double{boxes.min[axes[k]][i]});
      high[k] = std::max(high[k], double{boxes.max[axes[k]][i]});
      extent_sum[k] += double{boxes.max[axes[k]][i]} - double{boxes.min[axes[k]][i]};
    }
    ++counted;
  }
  if (counted == 0) return grid;
  double cells[2];
  for (int k = 0; k < 2; ++k) {
    const double range = high[k] - low[k];
    const double mean_extent = extent_sum[k] / static_cast<double>(counted);
    const double cell = std::max(kMeanSizesPerCell * mean_extent, range / kMaxCellsPerAxis);
    cells[k] = cell > 0 ? std::clamp(std::floor(range / cell), 1.0, double{kMaxCellsPerAxis}) : 1.0;
  }
  // No more cells than boxes: a box over everything is then listed at most n times.
  const double limit = std::max(1.0, static_cast<double>(counted));
  if (cells[0] * cells[1] > limit) {
    const double shrink = std::sqrt(limit / (cells[0] * cells[1]));
    cells[0] = std::max(1.0, std::floor(cells[0] * shrink));
    cells[1] = std::max(1.0, std::floor(cells[1] * shrink));
  }
  grid.origin_u = static_cast<float>(low[0]);
  grid.origin_v = static_cast<float>(low[1]);
  grid.cells_u = static_cast<std::uint32_t>(cells[0]);
  grid.cells_v = static_cast<std::uint32_t>(cells[1]);
  const double range_u = std::max(high[0] - low[0], 1e-30);
  const double range_v = std::max(high[1] - low[1], 1e-30);
  grid.inverse_cell_u = static_cast<float>(cells[0] / range_u);
  grid.inverse_cell_v = static_cast<float>(cells[1] / range_v);
  return grid;
}

void sort_pairs_lexicographically(std::vector<Pair>& pairs, sort::Sorter& sorter) {
  std::vector<std::uint32_t> keys(pairs.size());
  std::vector<std::uint32_t> order(pairs.size());
  std::iota(order.begin(), order.end(), 0u);
  const sort::SortOptions on_cpu{.algorithm = sort::Algorithm::Cpu};
  for (std::size_t i = 0; i < pairs.size(); ++i)
    keys[i] = pairs[order[i]].b;
  sorter.sort_pairs(keys, order, on_cpu);
  for (std::size_t i = 0; i < pairs.size(); ++i)
    keys[i] = pairs[order[i]].a;
  sorter.sort_pairs(keys, order, on_cpu);
  std::vector<Pair> sorted(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i)
    sorted[i] = pairs[order[i]];
  pairs.swap(sorted);
}

void brute_force_pairs(const HostBoxes& boxes, std::vector<Pair>& pairs) {
  pairs.clear();
  const std::size_t count = boxes.size();
  for (std::size_t a = 0; a < count; ++a) {
    for (std::size_t b = a + 1; b < count; ++b) {
      bool overlap = true;
      for (int axis = 0; axis < 3 && overlap; ++axis) {
        overlap =
            boxes.min[axis][a] <= boxes.max[axis][b] && boxes.min[axis][b] <= boxes.max[axis][a];
      }
      if (overlap &&
          filters_pass(boxes.categories[a], boxes.masks[a], boxes.categories[b], boxes.masks[b])) {
        pairs.push_back({static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)});
      }
    }
  }
}

}  // namespace rsw::physics::detail
