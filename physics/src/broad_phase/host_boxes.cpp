#include "host_boxes.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/engine/parallel.hpp"

namespace rsw::physics::detail {
namespace {

constexpr std::uint32_t kDefaultCategory = 1;
constexpr std::uint32_t kDefaultMask = 0xFFFFFFFFu;
constexpr const char* kAxisNames = "xyz";
/// Boxes a thread checks or sums at a time. The summary's sums are merged chunk by chunk in
/// order, so they do not depend on how many threads there were.
constexpr std::size_t kChunk = 64 * 1024;

std::size_t chunks_of(std::size_t count) {
  return (count + kChunk - 1) / kChunk;
}

/// Calls chunk(index, first, last) for each kChunk boxes of [0, count), on `threads` threads.
template <class Chunk>
void for_each_chunk(std::size_t count, int threads, Chunk&& chunk) {
  for_each_part(
      chunks_of(count), 1,
      [&](std::size_t first, std::size_t last) {
        for (std::size_t c = first; c < last; ++c)
          chunk(c, c * kChunk, std::min(count, (c + 1) * kChunk));
      },
      threads);
}

bool box_is_valid(const HostBoxes& boxes, std::size_t index) {
  const float low[3] = {boxes.min[0][index], boxes.min[1][index], boxes.min[2][index]};
  const float high[3] = {boxes.max[0][index], boxes.max[1][index], boxes.max[2][index]};
  return detail::box_is_valid(low, high);
}

std::size_t finish_loading(FilterArrays filter, InvalidBoxes policy, HostBoxes& out, int threads) {
  const std::size_t count = out.size();
  resize_host(out.categories, count, "the categories of the boxes");
  resize_host(out.masks, count, "the masks of the boxes");
  if (filter.categories.empty()) {
    std::ranges::fill(out.categories, kDefaultCategory);
  } else {
    std::ranges::copy(filter.categories, out.categories.begin());
  }
  if (filter.masks.empty()) {
    std::ranges::fill(out.masks, kDefaultMask);
  } else {
    std::ranges::copy(filter.masks, out.masks.begin());
  }
  out.worlds.clear();
  if (!filter.worlds.empty()) {
    const auto bad = std::ranges::find_if_not(filter.worlds, is_world);
    if (bad != filter.worlds.end()) {
      throw world_out_of_range(static_cast<std::size_t>(bad - filter.worlds.begin()), *bad);
    }
    resize_host(out.worlds, count, "the worlds of the boxes");
    std::ranges::copy(filter.worlds, out.worlds.begin());
  }

  // Per chunk: the invalid boxes, excluded (category 0) unless the policy rejects them, and
  // the first of them.
  std::vector<std::size_t> invalid(chunks_of(count), 0);
  std::vector<std::size_t> first_invalid(chunks_of(count), count);
  for_each_chunk(count, threads, [&](std::size_t chunk, std::size_t first, std::size_t last) {
    for (std::size_t index = first; index < last; ++index) {
      if (box_is_valid(out, index)) continue;
      if (invalid[chunk]++ == 0) first_invalid[chunk] = index;
      if (policy == InvalidBoxes::Reject) return;
      out.categories[index] = 0;
    }
  });
  std::size_t index = count;  // the first invalid box, if any
  for (const std::size_t first : first_invalid)
    index = std::min(index, first);
  if (policy == InvalidBoxes::Reject && index < count) {
    const float low[3] = {out.min[0][index], out.min[1][index], out.min[2][index]};
    const float high[3] = {out.max[0][index], out.max[1][index], out.max[2][index]};
    throw Error(ErrorKind::InvalidArgument, describe_invalid_box(index, low, high));
  }
  return std::reduce(invalid.begin(), invalid.end(), std::size_t{0});
}

}  // namespace

std::size_t load_boxes(const BoxSource& boxes, InvalidBoxes policy, HostBoxes& out, int threads) {
  const std::size_t count = boxes.count;
  for (int axis = 0; axis < 3; ++axis) {
    resize_host(out.min[axis], count, "the boxes' minima");
    resize_host(out.max[axis], count, "the boxes' maxima");
  }
  FilterArrays filter = boxes.host_filter;
  std::vector<std::uint32_t> downloaded_categories;
  std::vector<std::uint32_t> downloaded_masks;
  std::vector<std::uint32_t> downloaded_worlds;
  switch (boxes.form) {
    case BoxSource::Form::HostAos:
      for (std::size_t i = 0; i < count; ++i) {
        const Aabb& box = boxes.host_aos[i];
        out.min[0][i] = box.min.x;
        out.min[1][i] = box.min.y;
        out.min[2][i] = box.min.z;
        out.max[0][i] = box.max.x;
        out.max[1][i] = box.max.y;
        out.max[2][i] = box.max.z;
      }
      break;
    case BoxSource::Form::HostSoa: {
      const std::span<const float> mins[3] = {boxes.host_soa.min_x, boxes.host_soa.min_y,
                                              boxes.host_soa.min_z};
      const std::span<const float> maxs[3] = {boxes.host_soa.max_x, boxes.host_soa.max_y,
                                              boxes.host_soa.max_z};
      for (int axis = 0; axis < 3; ++axis) {
        std::ranges::copy(mins[axis], out.min[axis].begin());
        std::ranges::copy(maxs[axis], out.max[axis].begin());
      }
      break;
    }
    case BoxSource::Form::Device:
    case BoxSource::Form::DeviceAos: {
      const auto download = [&](auto& target, auto source) {
        resize_host(target, source.size, "the boxes downloaded from the device");
        if (!source.empty()) {
          rsw::detail::copy_device_to_host(target.data(), source.data, source.size_bytes(),
                                           boxes.stream);
        }
      };
      std::vector<Aabb> records;
      if (boxes.form == BoxSource::Form::Device) {
        const DeviceSpan<const float> mins[3] = {boxes.device.min_x, boxes.device.min_y,
                                                 boxes.device.min_z};
        const DeviceSpan<const float> maxs[3] = {boxes.device.max_x, boxes.device.max_y,
                                                 boxes.device.max_z};
        for (int axis = 0; axis < 3; ++axis) {
          download(out.min[axis], mins[axis]);
          download(out.max[axis], maxs[axis]);
        }
      } else {
        download(records, boxes.device_aos);
      }
      download(downloaded_categories, boxes.device_filter.categories);
      download(downloaded_masks, boxes.device_filter.masks);
      download(downloaded_worlds, boxes.device_filter.worlds);
      synchronize(boxes.stream);
      for (std::size_t i = 0; i < records.size(); ++i) {  // the records, once they are here
        out.min[0][i] = records[i].min.x;
        out.min[1][i] = records[i].min.y;
        out.min[2][i] = records[i].min.z;
        out.max[0][i] = records[i].max.x;
        out.max[1][i] = records[i].max.y;
        out.max[2][i] = records[i].max.z;
      }
      filter = {downloaded_categories, downloaded_masks, downloaded_worlds};
      break;
    }
  }
  return finish_loading(filter, policy, out, threads);
}

Error world_out_of_range(std::size_t index, std::uint32_t world) {
  return Error(ErrorKind::InvalidArgument, "worlds[" + std::to_string(index) + "] is " +
                                               std::to_string(world) + ": a world id is at most " +
                                               std::to_string(kMaxWorld) +
                                               " (2^24 - 1), or kAllWorlds (0xFFFFFFFF)");
}

std::string describe_invalid_box(std::size_t index, const float (&low)[3], const float (&high)[3]) {
  std::string reason;
  for (int axis = 0; axis < 3 && reason.empty(); ++axis) {
    if (!std::isfinite(low[axis]) || !std::isfinite(high[axis])) {
      reason = std::string("a non-finite coordinate on ") + kAxisNames[axis] + " (min " +
               std::to_string(low[axis]) + ", max " + std::to_string(high[axis]) + ")";
    } else if (low[axis] > high[axis]) {
      reason = std::string("min > max on ") + kAxisNames[axis] + " (" + std::to_string(low[axis]) +
               " > " + std::to_string(high[axis]) + ")";
    }
  }
  return "box " + std::to_string(index) + " has " + reason;
}

BoxSummary summarize(const HostBoxes& boxes, int threads) {
  const std::size_t count = boxes.size();
  std::vector<BoxSummary> chunks(chunks_of(count), BoxSummary::empty());
  for_each_chunk(count, threads, [&](std::size_t chunk, std::size_t first, std::size_t last) {
    BoxSummary& summary = chunks[chunk];
    for (std::size_t i = first; i < last; ++i) {
      if (boxes.categories[i] == 0 && !box_is_valid(boxes, i)) {
        ++summary.invalid;
        if (summary.first_invalid == BoxSummary::kNoBox)
          summary.first_invalid = static_cast<std::uint32_t>(i);
        continue;
      }
      const float low[3] = {boxes.min[0][i], boxes.min[1][i], boxes.min[2][i]};
      const float high[3] = {boxes.max[0][i], boxes.max[1][i], boxes.max[2][i]};
      summary.add(low, high);
      if (!boxes.worlds.empty()) summary.add_world(boxes.worlds[i]);
    }
  });
  BoxSummary summary = BoxSummary::empty();
  for (const BoxSummary& chunk : chunks)
    summary.merge(chunk);
  return summary;
}

}  // namespace rsw::physics::detail
