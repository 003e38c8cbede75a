// The CUDA backend: launches sweep_kernels.cuh's frame on one stream. The host waits once per
// frame, for the counts (listings, pairs, long runs) and the plan, after the sweep: the cell
// sort and the kernels after it read the number of listings on the device. Another wait
// follows when some runs were too long for sweep_cells (the rest of them is then tested), and
// another when a buffer sized from the frames before was too small: the listings' (they grow
// to the count and all from gather_boxes runs again) or the pairs' (it grows to the count and
// the tests run again). A frame whose boxes stayed in the cells of a listing kept by a frame
// before sweeps that listing (sweep_kernels.cuh): no sort, no listing; should a box have left
// its cells, the frame is run whole after the wait.
#include <cuda_runtime.h>

#include <thrust/iterator/transform_iterator.h>
#include <bit>
#include <cstddef>
#include <cub/device/device_scan.cuh>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>

#include "../host_boxes.hpp"
#include "../sweep_backend.hpp"
#include "rsw/engine/cuda_check.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/engine/stream.hpp"
#include "sweep_kernels.cuh"
#include "world_runs.cuh"

namespace rsw::physics::detail {
namespace {

using kernels::blocks_for;
using kernels::kThreads;

static_assert(sizeof(Aabb) == 6 * sizeof(float), "Aabb records are read as six floats");

/// Frames a scene whose boxes were found not in runs of worlds waits before they are looked for
/// again (a search costs a few launches and a wait, about as much as a frame of small worlds).
constexpr std::uint32_t kFramesBetweenRunSearches = 32;

/// The margin, in cells, by which a kept listing widens each box's bounds across (and, in
/// mean box extents, how far the minima may drift along the axis before the frame lists the
/// boxes again): the first, and the range it adapts in. A listing that served fewer than
/// kFramesOnListingWanted frames doubles it; one that served more than kFramesOnListingPlenty
/// halves it. Wider margins list more boxes twice and make longer runs.
constexpr float kFirstMargin = 1.0f / 16;
constexpr float kLeastMargin = 1.0f / 128;
constexpr float kMostMargin = 1.0f / 4;
constexpr std::uint32_t kFramesOnListingWanted = 4;
constexpr std::uint32_t kFramesOnListingPlenty = 64;
/// Candidates a box may cost a frame listed with a margin, or on a kept listing, more than the
/// last frame listed without one: two thirds of what the sort and listing a frame on a kept
/// listing saves are worth in candidate tests (on an H200, those of 1M uniform boxes take as
/// long as about 38M). Dense scenes, whose runs are long, keep no listing.
constexpr double kExtraCandidatesPerBox = 24;
/// Frames a scene lists afresh, without a margin, before it keeps a listing again, once its
/// listings cost too many candidates at the narrowest margin or served fewer than
/// kFramesOnListingWanted frames at the widest (boxes that move far each frame).
constexpr std::uint32_t kFramesBetweenKeptListings = 32;

class CudaSweep final : public SweepBackend {
 public:
  CudaSweep() {
    int device = 0;
    RSW_CUDA_CHECK(cudaGetDevice(&device), "finding the current device");
    int multiprocessors = 1;
    RSW_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device),
                   "counting multiprocessors");
    multiprocessors_ = static_cast<unsigned int>(multiprocessors);
    const kernels::FrameCounters between_frames = kernels::FrameCounters::between_frames();
    frame_.upload(std::span(&between_frames, 1));
    synchronize(nullptr);  // the frames run on other streams
  }

  void run(const BoxSource& source, const FrameRequest& request, BroadPhaseStats& stats) override {
    stream_handle_ = request.stream != nullptr ? request.stream : own_stream_.handle();
    stage_times_ = request.stage_times;
    stages_timed_ = 0;
    const StreamHandle stream = stream_handle_;
    const auto count = static_cast<std::uint32_t>(source.count);
    pair_count_ = 0;
    host_pairs_ready_ = false;
    const kernels::BoxView boxes = upload(source, stream);

    // The listing kept by the frame before serves this one if it was made for the same boxes
    // and request; it serves no other until this frame keeps it again.
    const bool on_kept = std::exchange(listing_kept_, false) && boxes.worlds == nullptr &&
                         count == order_.size() && same_as_plain(request);
    std::optional<kernels::FrameCounters> kept_frame;
    if (on_kept) kept_frame = sweep_kept_listing(boxes, count, request, stream);
    const kernels::FrameCounters frame = kept_frame ? *kept_frame
                                         : boxes.worlds != nullptr && world_runs_.ready(count)
                                             ? by_runs_or_cells(boxes, count, request, stream)
                                             : sort_and_sweep(boxes, count, request, stream);
    if (frame.first_bad_world != BoxSummary::kNoBox) throw bad_world(boxes, frame.first_bad_world);
    if (frame.summary.invalid > 0 && request.invalid_boxes == InvalidBoxes::Reject) {
      throw Error(ErrorKind::InvalidArgument, describe_box(boxes, frame.summary.first_invalid));
    }
    const FramePlan plan = frame.plan;
    world_offset_count_ = 0;
    host_offsets_ready_ = false;
    if (request.group_by_world) {
      group_pairs(boxes, count, worlds_present(frame.summary, boxes.worlds != nullptr), stream);
    } else if (request.sorted_pairs) {
      sort_pairs(count, nullptr, 0, stream);
    }

    profiler_.end_frame();
    profiler_.flush();  // the stream is idle: nothing waits
    stats.excluded_boxes = frame.summary.invalid;
    stats.sweep_axis = plan.axis;
    stats.listing_reused = kept_frame.has_value();
    stats.sort = by_runs_ || kept_frame ? sort::SortStats{} : sorter_.last_stats();
    stats.candidates = candidate_count_;
    stats.pairs = pair_count_;
    if (request.mode == SweepMode::Cells && !swept_whole_) {
      stats.cells = plan.grid.cells();
      stats.cell_entries = listing_count_;
    }
    if (stage_times_) {
      stats.upload_ms = last_ms("upload");
      stats.keys_ms = last_ms("keys");
      stats.sort_ms = last_ms("sort");
      stats.list_ms = last_ms("list");
      stats.sweep_ms = last_ms("sweep");
      stats.pair_sort_ms = last_ms("pair_sort");
    }
  }

  std::span<const Pair> host_pairs(BroadPhaseStats& stats) override {
    if (!host_pairs_ready_) {
      {
        auto timer = timed("download", stream_handle_);
        host_pairs_.resize_discarding(pair_count_);
        if (pair_count_ > 0) pairs_.download(host_pairs_.span(), stream_handle_);
      }
      synchronize(stream_handle_);
      profiler_.end_frame();
      profiler_.flush();
      if (stage_times_) stats.download_ms = last_ms("download");
      host_pairs_ready_ = true;
    }
    return {host_pairs_.data(), pair_count_};
  }

  DeviceSpan<const Pair> device_pairs() override { return {pairs_.data(), pair_count_}; }

  std::span<const std::uint32_t> host_world_offsets() override {
    if (!host_offsets_ready_) {
      host_offsets_.resize_discarding(world_offset_count_);
      if (world_offset_count_ > 0) world_offsets_.download(host_offsets_.span(), stream_handle_);
      synchronize(stream_handle_);
      host_offsets_ready_ = true;
    }
    return {host_offsets_.data(), world_offset_count_};
  }

  DeviceSpan<const std::uint32_t> device_world_offsets() override {
    return {world_offsets_.data(), world_offset_count_};
  }

  std::vector<std::uint32_t> export_order() override { return order_.to_vector(stream_handle_); }
  void import_order(std::vector<std::uint32_t> order) override {
    order_.upload(order, stream_handle_);
    listing_kept_ = false;
  }

 private:
  // A CUDA-event scope for `stage` when the frame times its stages.
  std::optional<StageProfiler::Scope> timed(std::string_view stage, StreamHandle stream) {
    if (!stage_times_) return std::nullopt;
    stages_timed_ |= stage_bit(stage);
    return profiler_.time(stage, Backend::Cuda, stream);
  }

  // The stage's time in this frame; 0 for a stage the frame did not run (the profiler keeps
  // the last sample of a stage that a frame of another kind ran).
  double last_ms(std::string_view stage) const {
    if ((stages_timed_ & stage_bit(stage)) == 0) return 0.0;
    const auto stage_stats = profiler_.stats(stage);
    return stage_stats && stage_stats->samples > 0 ? stage_stats->last_ms : 0.0;
  }

  static std::uint32_t stage_bit(std::string_view stage) {
    constexpr std::string_view kStages[] = {"upload", "keys",      "sort",    "list",
                                            "sweep",  "pair_sort", "download"};
    for (std::uint32_t i = 0; i < std::size(kStages); ++i) {
      if (stage == kStages[i]) return 1u << i;
    }
    return 0;
  }

  // The boxes as kernels read them: host data is uploaded as it is (Aabb records whole, SoA
  // arrays each), device data is read where it lies.
  kernels::BoxView upload(const BoxSource& source, StreamHandle stream) {
    auto timer = timed("upload", stream);
    kernels::BoxView view{};
    const auto upload_filter = [&](std::span<const std::uint32_t> host,
                                   DeviceBuffer<std::uint32_t>& buffer) -> const std::uint32_t* {
      if (host.empty()) return nullptr;
      buffer.upload(host, stream);
      return buffer.data();
    };
    switch (source.form) {
      case BoxSource::Form::HostAos: {
        const std::span<const float> floats(reinterpret_cast<const float*>(source.host_aos.data()),
                                            source.count * 6);
        records_.upload(floats, stream);
        for (int axis = 0; axis < 3; ++axis) {
          view.min[axis] = records_.data() + axis;
          view.max[axis] = records_.data() + 3 + axis;
        }
        view.stride = 6;
        break;
      }
      case BoxSource::Form::HostSoa: {
        const std::span<const float> mins[3] = {source.host_soa.min_x, source.host_soa.min_y,
                                                source.host_soa.min_z};
        const std::span<const float> maxs[3] = {source.host_soa.max_x, source.host_soa.max_y,
                                                source.host_soa.max_z};
        for (int axis = 0; axis < 3; ++axis) {
          arrays_[axis].upload(mins[axis], stream);
          arrays_[3 + axis].upload(maxs[axis], stream);
          view.min[axis] = arrays_[axis].data();
          view.max[axis] = arrays_[3 + axis].data();
        }
        view.stride = 1;
        break;
      }
      case BoxSource::Form::Device: {
        const DeviceSpan<const float> mins[3] = {source.device.min_x, source.device.min_y,
                                                 source.device.min_z};
        const DeviceSpan<const float> maxs[3] = {source.device.max_x, source.device.max_y,
                                                 source.device.max_z};
        for (int axis = 0; axis < 3; ++axis) {
          view.min[axis] = mins[axis].data;
          view.max[axis] = maxs[axis].data;
        }
        view.stride = 1;
        view.categories = source.device_filter.categories.data;
        view.masks = source.device_filter.masks.data;
        view.worlds = source.device_filter.worlds.data;
        return view;
      }
      case BoxSource::Form::DeviceAos: {
        const auto* floats = reinterpret_cast<const float*>(source.device_aos.data);
        for (int axis = 0; axis < 3; ++axis) {
          view.min[axis] = floats + axis;
          view.max[axis] = floats + 3 + axis;
        }
        view.stride = 6;
        view.categories = source.device_filter.categories.data;
        view.masks = source.device_filter.masks.data;
        view.worlds = source.device_filter.worlds.data;
        return view;
      }
    }
    view.categories = upload_filter(source.host_filter.categories, categories_);
    view.masks = upload_filter(source.host_filter.masks, masks_);
    view.worlds = upload_filter(source.host_filter.worlds, worlds_);
    return view;
  }

  // The frame of a scene whose worlds came in runs (world_runs.cuh), or, when a box left its
  // run, the frame by the cells after all.
  kernels::FrameCounters by_runs_or_cells(const kernels::BoxView& boxes, std::uint32_t count,
                                          const FrameRequest& request, StreamHandle stream) {
    std::optional<WorldRuns::Frame> runs;
    {
      auto timer = timed("sweep", stream);
      runs = world_runs_.sweep(boxes, request.axis, pairs_, stream);
    }
    if (!runs) return sort_and_sweep(boxes, count, request, stream);
    swept_whole_ = true;
    by_runs_ = true;
    small_worlds_next_ = worlds_are_small(runs->summary);
    listing_count_ = 0;
    long_count_ = 0;
    pair_count_ = runs->pairs;
    candidate_count_ = runs->candidates;
    kernels::FrameCounters frame = kernels::FrameCounters::between_frames();
    frame.summary = runs->summary;
    frame.plan.axis = runs->axis;
    frame.pairs = runs->pairs;
    return frame;
  }

  // The frame by sorting every box: summary and plan, the sort, and the sweep, of small
  // worlds whole from a scene's second frame on, else in cells. After a frame that found small
  // worlds, looks for runs in them for the frames after (world_runs.cuh).
  kernels::FrameCounters sort_and_sweep(const kernels::BoxView& boxes, std::uint32_t count,
                                        const FrameRequest& request, StreamHandle stream) {
    // Keys staged in last frame's order are nearly sorted, unless the order starts afresh.
    order_carried_ = order_.size() == count;
    if (!order_carried_) {  // first frame, or boxes added or removed
      order_.resize_discarding(count);
      if (count > 0) {
        kernels::iota<<<blocks_for(count), kThreads, 0, stream>>>(order_.data(), count);
        RSW_CUDA_CHECK_LAUNCH("launching iota");
      }
      // Another scene: small worlds until shown not to be, and runs looked for at once.
      small_worlds_allowed_ = true;
      frames_to_runs_ = 0;
    }
    const bool small_worlds =
        boxes.worlds != nullptr && order_carried_ && small_worlds_next_ && small_worlds_allowed_;
    sort_boxes(boxes, count, request, small_worlds, stream);
    // A listing is kept for the frames after from a scene's second frame on (no worlds), once
    // a frame of the same request was listed without a margin.
    bool keep = boxes.worlds == nullptr && order_carried_ && count > 0 && same_as_plain(request);
    if (keep && frames_to_kept_listing_ > 0) {
      --frames_to_kept_listing_;
      keep = false;
    }
    const kernels::FrameCounters frame =
        small_worlds ? sweep_small_worlds(boxes, count, stream)
                     : list_and_sweep(boxes, count, request.mode == SweepMode::Cells, request.sort,
                                      keep, stream);
    if (keep) {  // no worlds: listed in cells
      listing_room_ = true;
      if (costs_too_many_candidates(count)) {
        adapt_margin(0, true);
      } else {
        keep_listing(frame, request);
      }
    } else if (!small_worlds) {
      plain_candidates_ = candidate_count_;
      plain_request_ = request;
    }
    swept_whole_ = small_worlds;
    by_runs_ = false;
    small_worlds_next_ = boxes.worlds != nullptr && worlds_are_small(frame.summary);
    const bool failed =
        frame.first_bad_world != BoxSummary::kNoBox ||
        (frame.summary.invalid > 0 && request.invalid_boxes == InvalidBoxes::Reject);
    if (frames_to_runs_ > 0) {
      --frames_to_runs_;
    } else if (small_worlds_next_ && !failed &&
               !world_runs_.build(boxes, count, frame.plan.axis, stream)) {
      frames_to_runs_ = kFramesBetweenRunSearches;
    }
    return frame;
  }

  // Summary and plan, keys in last frame's order (for small worlds, WorldKeys) and the sort,
  // whose sorted boxes become order_, this frame's order. The host does not wait.
  void sort_boxes(const kernels::BoxView& boxes, std::uint32_t count, const FrameRequest& request,
                  bool small_worlds, StreamHandle stream) {
    kernels::FrameCounters* frame = frame_.data();
    const auto tiles = static_cast<int>(blocks_for(count));
    {
      auto timer = timed("keys", stream);
      packed_.resize_discarding(count);
      // Launched for no boxes too: its last block plans the frame and resets the counters.
      // kSummarizeBoxes a thread where the boxes are few enough: fewer blocks merge their
      // summaries into the frame's with atomics.
      const auto summarize = kernels::summarize_boxes;
      summarize<<<box_batch_blocks(summarize, count), kThreads, 0, stream>>>(
          boxes, count, frame, packed_.data(), request.axis, request.mode);
      RSW_CUDA_CHECK_LAUNCH("launching summarize_boxes");
      keys_.resize_discarding(count);
      key_boxes_.resize_discarding(count);
      std::size_t tile_bytes = 0;
      RSW_CUDA_CHECK(kernels::ListingTiles::AllocationSize(tiles, tile_bytes),
                     "sizing the listing scan's tile states");
      listing_tiles_.resize_discarding(tile_bytes);
      RSW_CUDA_CHECK(listing_scan_.Init(tiles, listing_tiles_.data(), tile_bytes),
                     "placing the listing scan's tile states");
      if (count > 0 && small_worlds) {
        kernels::stage_world_keys<<<blocks_for(count), kThreads, 0, stream>>>(
            packed_.data(), order_.data(), count, frame, keys_.data(), key_boxes_.data());
        RSW_CUDA_CHECK_LAUNCH("launching stage_world_keys");
      } else if (count > 0) {
        kernels::stage_keys<<<blocks_for(count), kThreads, 0, stream>>>(
            boxes, order_.data(), count, frame, keys_.data(), key_boxes_.data(), listing_scan_,
            tiles);
        RSW_CUDA_CHECK_LAUNCH("launching stage_keys");
      }
    }
    {
      auto timer = timed("sort", stream);
      sorter_.sort_pairs(
          keys_.span(), key_boxes_.span(),
          {.algorithm = request.sort, .nearly_sorted = order_carried_, .stream = stream});
    }
    std::swap(order_, key_boxes_);
  }

  // The listings (gather_boxes), their cell sort and records (list_in_cells), the sweep into
  // the pair buffer, and the frame's wait. The listings' and pairs' buffers are sized from the
  // frames before; when the listings did not fit, the buffers grow to the count and all from
  // gather_boxes runs again. Then, if some runs were long, the rest of them (sweep extents,
  // their scan, the candidate tests) and another wait; and if the pair buffer overflowed, the
  // tests again into one of the counted size. Returns the frame's counters as read back.
  kernels::FrameCounters list_and_sweep(const kernels::BoxView& boxes, std::uint32_t count,
                                        bool cells, sort::Algorithm sort_algorithm, bool keep,
                                        StreamHandle stream) {
    if (keep) listed_boxes_.resize_discarding(count);
    const kernels::KeptListing kept = keep ? kernels::KeptListing{listed_boxes_.data(), margin_}
                                           : kernels::KeptListing{nullptr, 0.0f};
    // Room for the listings: as many as the buffers held, and at first three a box (a box
    // about half a cell wide is listed in 2.25 cells on average); for pairs, as many as the
    // buffer held, and at first four a listing of the last frame or a box.
    std::size_t room = std::min<std::size_t>(
        std::max(listing_cells_.capacity(), std::size_t{cells ? 3u : 1u} * count),
        kernels::kMaxListings);
    pairs_.resize_discarding(
        std::max<std::size_t>(pairs_.capacity(), 4 * std::size_t{std::max(listing_count_, count)}));
    const kernels::FrameCounters* counters = nullptr;
    for (bool again = false;; again = true) {
      listing_cells_.resize_discarding(room);
      listing_boxes_.resize_discarding(room);
      listing_records_.resize_discarding(room);
      long_listings_.resize_discarding(room);
      if (again) {  // the frame's counts from gather_boxes on start afresh
        const int tiles = static_cast<int>(blocks_for(count));
        kernels::ready_listing_tiles<<<blocks_for(static_cast<std::size_t>(tiles)), kThreads, 0,
                                       stream>>>(listing_scan_, tiles);
        RSW_CUDA_CHECK_LAUNCH("launching ready_listing_tiles");
        zero_sweep_counts(true, stream);
        rsw::detail::fill_bytes_zero(&frame_.data()->shared_listings, sizeof(unsigned long long),
                                     stream);
      }
      if (count > 0) {
        list_boxes(count, kept, stream);
        list_in_cells(cells || boxes.worlds != nullptr, boxes.worlds != nullptr, count,
                      sort_algorithm, kept.margin, stream);
        sweep(boxes, cells, false, long_listings_.data(), stream);
      }
      counters = &read_frame(stream);
      if (counters->listings > kernels::kMaxListings) throw too_many_listings(counters->listings);
      if (counters->listings <= room) break;
      room = counters->listings;
    }
    listing_count_ = static_cast<std::uint32_t>(counters->listings);
    return finish_sweep(*counters, boxes, cells, false, stream);
  }

  // After the sweep and the frame's wait (`counters`): if some runs were long, the rest of
  // them and another wait; if the pair buffer overflowed, the tests again into one of the
  // counted size. Returns the frame's counters as read back last.
  kernels::FrameCounters finish_sweep(const kernels::FrameCounters& swept,
                                      const kernels::BoxView& boxes, bool cells, bool drifted,
                                      StreamHandle stream) {
    const kernels::FrameCounters* counters = &swept;
    long_count_ = static_cast<std::uint32_t>(counters->long_runs);
    if (long_count_ > 0) {
      count_long_runs(drifted, stream);
      test_long_runs(boxes, cells, stream);
      counters = &read_frame(stream);
    }
    if (counters->pairs > pairs_.size()) {
      pairs_.resize_discarding(counters->pairs);
      zero_sweep_counts(false, stream);  // the list of long runs stays as it is
      sweep(boxes, cells, drifted, nullptr, stream);
      if (long_count_ > 0) test_long_runs(boxes, cells, stream);
      counters = &read_frame(stream);
    }
    pair_count_ = counters->pairs;
    candidate_count_ = counters->candidates + (long_count_ > 0 ? counters->long_candidates : 0);
    return *counters;
  }

  // Whether a frame of `request` sweeps as the last frame listed without a margin did (the one
  // a kept listing was also made for): the same axis and mode.
  bool same_as_plain(const FrameRequest& request) const {
    return request.axis == plain_request_.axis && request.mode == plain_request_.mode;
  }

  // Marks the listing of the frame just swept (`frame`, listed with margin_, of a request
  // same_as_plain) as kept for the next frame, with the drift along the axis it allows:
  // margin_ cells in mean box extents.
  void keep_listing(const kernels::FrameCounters& frame, const FrameRequest& request) {
    if (frame.summary.invalid > 0 && request.invalid_boxes == InvalidBoxes::Reject) {
      return;  // the frame fails
    }
    if (frame.listings == 0) return;  // nothing to sweep: a frame lists none quickly
    listing_kept_ = true;
    frames_on_listing_ = 0;
    const int axis = frame.plan.axis;
    const double mean_extent =
        frame.summary.valid > 0
            ? frame.summary.extent_sum[axis] / static_cast<double>(frame.summary.valid)
            : 0.0;
    drift_allowed_ = static_cast<float>(double{margin_} * kMeanSizesPerCell * mean_extent);
  }

  // A frame on the listing the frame before kept (see sweep_kernels.cuh): the boxes checked
  // against their listed cells and packed, the listings' records refreshed with their bounds,
  // the sweep with runs that reach twice the drift further, and the frame's wait. Nothing
  // when a box left its cells: the whole frame runs then. A frame whose minima drifted past
  // what the margin allows is swept, and the next frame lists the boxes afresh. When a listing
  // ends, the margin of the next adapts to how many frames it served.
  std::optional<kernels::FrameCounters> sweep_kept_listing(const kernels::BoxView& boxes,
                                                           std::uint32_t count,
                                                           const FrameRequest& request,
                                                           StreamHandle stream) {
    kernels::FrameCounters* frame = frame_.data();
    static_assert(
        offsetof(kernels::FrameCounters, stale) ==
                offsetof(kernels::FrameCounters, long_runs) + sizeof(unsigned long long) &&
            offsetof(kernels::FrameCounters, drift_bits) ==
                offsetof(kernels::FrameCounters, stale) + sizeof(std::uint32_t),
        "the sweep's counts, stale and drift lie together");
    {
      auto timer = timed("keys", stream);
      rsw::detail::fill_bytes_zero(
          &frame->candidates, 3 * sizeof(unsigned long long) + 2 * sizeof(std::uint32_t), stream);
      const auto check = kernels::check_listing;
      check<<<box_batch_blocks(check, count), kThreads, 0, stream>>>(
          boxes, count, frame, packed_.data(), listed_boxes_.data());
      RSW_CUDA_CHECK_LAUNCH("launching check_listing");
    }
    {
      auto timer = timed("list", stream);
      kernels::regather_listings<<<blocks_for(listing_count_), kThreads, 0, stream>>>(
          packed_.data(), frame, listing_count_, listing_records_.data());
      RSW_CUDA_CHECK_LAUNCH("launching regather_listings");
    }
    const bool cells = request.mode == SweepMode::Cells;
    sweep(boxes, cells, true, long_listings_.data(), stream);
    const kernels::FrameCounters& swept = read_frame(stream);
    if (swept.stale != 0) {
      adapt_margin(frames_on_listing_ + 1, false);
      return std::nullopt;
    }
    const bool drifted_far = std::bit_cast<float>(swept.drift_bits) > drift_allowed_;
    swept_whole_ = false;
    by_runs_ = false;
    const kernels::FrameCounters counters = finish_sweep(swept, boxes, cells, true, stream);
    const bool costly = costs_too_many_candidates(count);
    if (costly || drifted_far) {
      adapt_margin(frames_on_listing_ + 1, costly);
    } else {
      listing_kept_ = true;
      ++frames_on_listing_;
    }
    return counters;
  }

  // Whether the frame just swept (listed with a margin, or on a kept listing) tested more
  // candidates than the last frame listed without one and kExtraCandidatesPerBox a box; notes
  // in listing_room_ whether it tested fewer than half that many more.
  bool costs_too_many_candidates(std::uint32_t count) {
    const double allowed = kExtraCandidatesPerBox * count;
    const double extra =
        static_cast<double>(candidate_count_) - static_cast<double>(plain_candidates_);
    if (extra > allowed / 2) listing_room_ = false;
    return extra > allowed;
  }

  // The margin for the next listing kept, as one ends after serving `frames` frames (0: the
  // frame that listed it already cost too much): narrower when its candidates cost too much
  // or it served many frames, wider when it served few and its candidates left room. Listings
  // stop for kFramesBetweenKeptListings frames when the narrowest cost too much, or when the
  // widest (or one without room) served few.
  void adapt_margin(std::uint32_t frames, bool too_many_candidates) {
    if (too_many_candidates || frames > kFramesOnListingPlenty) {
      if (too_many_candidates && margin_ <= kLeastMargin) {
        frames_to_kept_listing_ = kFramesBetweenKeptListings;
      }
      margin_ = std::max(margin_ / 2, kLeastMargin);
    } else if (frames < kFramesOnListingWanted) {
      if (margin_ >= kMostMargin || !listing_room_) {
        frames_to_kept_listing_ = kFramesBetweenKeptListings;
      } else {
        margin_ = std::min(2 * margin_, kMostMargin);
      }
    }
  }

  // Whether a frame's worlds are small enough (kSmallWorldBoxes) for the next frame to sweep
  // them whole.
  static bool worlds_are_small(const BoxSummary& summary) {
    if (summary.world_low > summary.world_high) return false;  // no world but kAllWorlds
    const double span =
        static_cast<double>(summary.world_high) - static_cast<double>(summary.world_low) + 1.0;
    return static_cast<double>(summary.valid) <= kernels::kSmallWorldBoxes * span;
  }

  // The small-worlds frame after the sort (the boxes in key order, their keys in keys_):
  // sweep_worlds into the pair buffer and the frame's wait; if the pairs did not fit, the
  // buffer grows to the count and the sweep runs again. A long walk leaves the worlds to the
  // cells until another scene starts. Returns the frame's counters as read back.
  kernels::FrameCounters sweep_small_worlds(const kernels::BoxView& boxes, std::uint32_t count,
                                            StreamHandle stream) {
    pairs_.resize_discarding(std::max<std::size_t>(pairs_.capacity(), 4 * std::size_t{count}));
    const kernels::FrameCounters* counters = nullptr;
    for (;;) {
      if (count > 0) {
        auto timer = timed("sweep", stream);
        const auto launch = [&](auto filter_bits) {
          const auto kernel = kernels::sweep_worlds<decltype(filter_bits)::value>;
          kernel<<<resident_blocks(kernel), kThreads, 0, stream>>>(
              keys_.data(), order_.data(), count, packed_.data(), boxes, frame_.data(),
              pairs_.data(), pairs_.size());
          RSW_CUDA_CHECK_LAUNCH("launching sweep_worlds");
        };
        if (boxes.filtered()) {
          launch(std::true_type{});
        } else {
          launch(std::false_type{});
        }
      }
      counters = &read_frame(stream);
      if (counters->pairs <= pairs_.size()) break;
      pairs_.resize_discarding(counters->pairs);
      zero_sweep_counts(true, stream);
    }
    if (counters->long_runs > 0) small_worlds_allowed_ = false;
    listing_count_ = 0;
    long_count_ = 0;
    pair_count_ = counters->pairs;
    candidate_count_ = counters->candidates;
    return *counters;
  }

  // The sorted boxes' records and their listings, numbered in sorted order, into room for as
  // many as the listing buffers hold.
  void list_boxes(std::uint32_t count, const kernels::KeptListing& kept, StreamHandle stream) {
    auto timer = timed("list", stream);
    sorted_.resize_discarding(count);
    kernels::gather_boxes<<<blocks_for(count), kThreads, 0, stream>>>(
        packed_.data(), order_.data(), count, frame_.data(), sorted_.data(), listing_scan_,
        {listing_cells_.data(), listing_boxes_.data(), listing_cells_.size()}, kept);
    RSW_CUDA_CHECK_LAUNCH("launching gather_boxes");
  }

  // The (cell, box) listings in cell order with minimum order inside each cell (gather_boxes
  // lists them in sorted order, and the cell sort is stable), and their records gathered in
  // that order. Axis sweep without worlds: one cell, no cell sort. Their number stays on the
  // device: the cell sort and gather_listings read it there, so the room is what the host
  // sizes them by, and the cell ids' bits are bounded by the boxes' number rather than by the
  // plan (with worlds, by kCellBits: the sort skips the digits all cells share).
  void list_in_cells(bool cells, bool worlds, std::uint32_t boxes, sort::Algorithm sort_algorithm,
                     float margin, StreamHandle stream) {
    const auto room = static_cast<std::uint32_t>(listing_cells_.size());
    auto timer = timed("list", stream);
    if (cells) {
      cell_sorter_.sort_pairs(
          listing_cells_.span(), listing_boxes_.span(),
          {.algorithm = sort_algorithm,
           .end_bit = worlds ? static_cast<int>(std::bit_width(kCellBits)) : max_cell_bits(boxes),
           .stream = stream,
           .device_count = &frame_.data()->listings});
    }
    kernels::gather_listings<<<blocks_for(room), kThreads, 0, stream>>>(
        sorted_.data(), listing_cells_.data(), listing_boxes_.data(), frame_.data(), room, margin,
        listing_records_.data());
    RSW_CUDA_CHECK_LAUNCH("launching gather_listings");
  }

  // Zeroes the sweep's counts of candidates and pairs (and of long runs, when `long_runs`),
  // for running it again.
  void zero_sweep_counts(bool long_runs, StreamHandle stream) {
    static_assert(
        offsetof(kernels::FrameCounters, pairs) ==
                offsetof(kernels::FrameCounters, candidates) + sizeof(unsigned long long) &&
            offsetof(kernels::FrameCounters, long_runs) ==
                offsetof(kernels::FrameCounters, pairs) + sizeof(unsigned long long),
        "the sweep's counts lie together");
    rsw::detail::fill_bytes_zero(&frame_.data()->candidates,
                                 (long_runs ? 3 : 2) * sizeof(unsigned long long), stream);
  }

  // sweep_cells, the variant for the mode, filter bits and whether the listing is a kept one
  // (`drifted`); long runs listed in `long_listings` unless it is null. With worlds,
  // meet_shared after it.
  void sweep(const kernels::BoxView& boxes, bool cells, bool drifted, std::uint32_t* long_listings,
             StreamHandle stream) {
    auto timer = timed("sweep", stream);
    const auto room = static_cast<std::uint32_t>(listing_records_.size());
    const auto launch_sweep = [&](auto cells_mode, auto filter_bits, auto drifted_listing) {
      constexpr bool kCells = decltype(cells_mode)::value;
      constexpr bool kFilters = decltype(filter_bits)::value;
      const auto kernel = kernels::sweep_cells<kCells, kFilters, decltype(drifted_listing)::value>;
      kernel<<<resident_blocks(kernel), kThreads, 0, stream>>>(listing_records_.data(), room, boxes,
                                                               frame_.data(), pairs_.data(),
                                                               pairs_.size(), long_listings);
      RSW_CUDA_CHECK_LAUNCH("launching sweep_cells");
      if (boxes.worlds == nullptr) return;
      const auto shared = kernels::meet_shared<kCells, kFilters>;
      shared<<<resident_blocks(shared), kThreads, 0, stream>>>(
          listing_records_.data(), room, boxes, frame_.data(), pairs_.data(), pairs_.size());
      RSW_CUDA_CHECK_LAUNCH("launching meet_shared");
    };
    for_variant(cells, boxes, [&](auto cells_mode, auto filter_bits) {
      if (drifted) return launch_sweep(cells_mode, filter_bits, std::true_type{});
      launch_sweep(cells_mode, filter_bits, std::false_type{});
    });
  }

  // The candidates of the long runs past their first kSweepSteps, counted and numbered.
  // On a kept listing (`drifted`), by its keys (see sweep_extents).
  void count_long_runs(bool drifted, StreamHandle stream) {
    const std::uint32_t runs = long_count_;
    auto timer = timed("sweep", stream);
    candidate_counts_.resize_discarding(std::size_t{runs} + 1);
    candidate_offsets_.resize_discarding(std::size_t{runs} + 1);
    rsw::detail::fill_bytes_zero(candidate_counts_.data() + runs, sizeof(std::uint32_t), stream);
    kernels::sweep_extents<<<blocks_for(runs), kThreads, 0, stream>>>(
        listing_records_.data(), listing_count_, long_listings_.data(), runs, kernels::kSweepSteps,
        drifted ? listed_boxes_.data() : nullptr, frame_.data(), candidate_counts_.data());
    RSW_CUDA_CHECK_LAUNCH("launching sweep_extents");
    scan(candidate_counts_, candidate_offsets_, runs, &frame_.data()->long_candidates, stream);
  }

  // test_candidates over the long runs' numbered candidates.
  void test_long_runs(const kernels::BoxView& boxes, bool cells, StreamHandle stream) {
    auto timer = timed("sweep", stream);
    for_variant(cells, boxes, [&](auto cells_mode, auto filter_bits) {
      const auto kernel =
          kernels::test_candidates<decltype(cells_mode)::value, decltype(filter_bits)::value>;
      kernel<<<resident_blocks(kernel), kThreads, 0, stream>>>(
          listing_records_.data(), long_listings_.data(), long_count_, kernels::kSweepSteps, boxes,
          candidate_offsets_.data(), frame_.data(), pairs_.data(), pairs_.size());
      RSW_CUDA_CHECK_LAUNCH("launching test_candidates");
    });
  }

  // Calls launch(cells_mode, filter_bits) with std::bool_constant arguments for the frame's
  // mode and whether the boxes carry filter bits: the variant of a candidate-testing kernel
  // (sweep_cells, test_candidates) that the frame needs.
  template <class Launch>
  static void for_variant(bool cells, const kernels::BoxView& boxes, Launch&& launch) {
    const bool filters = boxes.filtered();
    if (cells) {
      if (filters) return launch(std::true_type{}, std::true_type{});
      return launch(std::true_type{}, std::false_type{});
    }
    if (filters) return launch(std::false_type{}, std::true_type{});
    launch(std::false_type{}, std::false_type{});
  }

  // Blocks for a kernel whose threads take `count` boxes kSummarizeBoxes at a time, striding
  // over a grid of at most its resident blocks (summarize_boxes, check_listing): fewer blocks
  // where the boxes are few, and at least one (its last block readies the counters).
  template <class Kernel>
  unsigned int box_batch_blocks(Kernel kernel, std::uint32_t count) {
    return std::clamp(
        blocks_for((std::size_t{count} + kernels::kSummarizeBoxes - 1) / kernels::kSummarizeBoxes),
        1u, resident_blocks(kernel));
  }

  // Blocks of `kernel` resident at once on the whole device (persistent blocks).
  template <class Kernel>
  unsigned int resident_blocks(Kernel kernel) {
    unsigned int& blocks = resident_blocks_[reinterpret_cast<const void*>(kernel)];
    if (blocks == 0) {
      int per_multiprocessor = 1;
      RSW_CUDA_CHECK(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, kThreads, 0),
          "sizing a persistent grid");
      blocks = static_cast<unsigned int>(std::max(per_multiprocessor, 1)) * multiprocessors_;
    }
    return blocks;
  }

  // The pairs in (world, a, b) order (sort_pairs with the worlds' pass) and the offsets of the
  // `worlds` worlds' pairs, found by world_offsets in the sorted keys.
  void group_pairs(const kernels::BoxView& boxes, std::uint32_t count, std::uint32_t worlds,
                   StreamHandle stream) {
    sort_pairs(count, worlds > 0 ? boxes.worlds : nullptr, worlds, stream);
    auto timer = timed("pair_sort", stream);
    world_offset_count_ = std::size_t{worlds} + 1;
    world_offsets_.resize_discarding(world_offset_count_);
    // With no world of its own, every pair is of two kAllWorlds boxes (after offsets[0]).
    const bool keyed = boxes.worlds != nullptr && pair_count_ > 0 && worlds > 0;
    kernels::world_offsets<<<blocks_for(world_offset_count_), kThreads, 0, stream>>>(
        keyed ? pair_keys_.data() : nullptr, static_cast<std::uint32_t>(pair_count_), worlds,
        world_offsets_.data());
    RSW_CUDA_CHECK_LAUNCH("launching world_offsets");
  }

  // The pairs in (a, b) order: a stable sort by b, then by a, of their positions, and a
  // gather. Keys need only the bits of the largest box index. With `box_worlds`, a last
  // stable sort by the pairs' worlds (pair_world; `worlds` is the key of pairs of two
  // kAllWorlds boxes) leaves them in (world, a, b) order and the sorted world keys in
  // pair_keys_.
  void sort_pairs(std::uint32_t count, const std::uint32_t* box_worlds, std::uint32_t worlds,
                  StreamHandle stream) {
    if (pair_count_ == 0) return;
    if (pair_count_ >= BoxSummary::kNoBox) {
      throw Error(ErrorKind::OutOfMemory,
                  std::to_string(pair_count_) + " pairs: too many to sort with 32-bit positions");
    }
    auto timer = timed("pair_sort", stream);
    const auto pairs = static_cast<std::uint32_t>(pair_count_);
    const int end_bit = std::bit_width(count - 1);
    pair_keys_.resize_discarding(pairs);
    pair_order_.resize_discarding(pairs);
    kernels::iota<<<blocks_for(pairs), kThreads, 0, stream>>>(pair_order_.data(), pairs);
    RSW_CUDA_CHECK_LAUNCH("launching iota");
    for (const bool by_a : {false, true}) {  // LSD: the minor key b first
      kernels::pair_keys<<<blocks_for(pairs), kThreads, 0, stream>>>(
          pairs_.data(), by_a ? pair_order_.data() : nullptr, pairs, by_a, pair_keys_.data());
      RSW_CUDA_CHECK_LAUNCH("launching pair_keys");
      pair_sorter_.sort_pairs(
          pair_keys_.span(), pair_order_.span(),
          {.algorithm = sort::Algorithm::Onesweep, .end_bit = end_bit, .stream = stream});
    }
    if (box_worlds != nullptr) {
      kernels::pair_world_keys<<<blocks_for(pairs), kThreads, 0, stream>>>(
          pairs_.data(), pair_order_.data(), pairs, box_worlds, worlds, pair_keys_.data());
      RSW_CUDA_CHECK_LAUNCH("launching pair_world_keys");
      pair_sorter_.sort_pairs(pair_keys_.span(), pair_order_.span(),
                              {.algorithm = sort::Algorithm::Onesweep,
                               .end_bit = static_cast<int>(std::bit_width(worlds)),
                               .stream = stream});
    }
    sorted_pairs_.resize_discarding(pairs);
    kernels::gather_pairs<<<blocks_for(pairs), kThreads, 0, stream>>>(
        pairs_.data(), pair_order_.data(), pairs, sorted_pairs_.data());
    RSW_CUDA_CHECK_LAUNCH("launching gather_pairs");
    std::swap(pairs_, sorted_pairs_);
  }

  // Exclusive scan of counts[0, items] (the last entry 0) into offsets, summed in 64 bits;
  // the total lands in offsets[items] and is copied to `total` on the device.
  void scan(const DeviceBuffer<std::uint32_t>& count_buffer,
            DeviceBuffer<unsigned long long>& offsets, std::uint32_t items,
            unsigned long long* total, StreamHandle stream) {
    const auto counts = thrust::make_transform_iterator(count_buffer.data(), kernels::Widen{});
    std::size_t scan_bytes = 0;
    RSW_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, offsets.data(),
                                                 std::size_t{items} + 1, stream),
                   "sizing a count scan");
    scan_temp_.resize_discarding(std::max(scan_temp_.size(), scan_bytes));
    RSW_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp_.data(), scan_bytes, counts,
                                                 offsets.data(), std::size_t{items} + 1, stream),
                   "scanning counts");
    rsw::detail::copy_device_to_device(total, offsets.data() + items, sizeof(unsigned long long),
                                       stream);
  }

  const kernels::FrameCounters& read_frame(StreamHandle stream) {
    host_frame_.copy_small_from_device(frame_.data(), 1, stream);
    synchronize(stream);
    return host_frame_[0];
  }

  // The error for the box with a world id out of range, read from the device; the frame's
  // counters are readied for the next frame.
  Error bad_world(const kernels::BoxView& boxes, std::uint32_t box) {
    std::uint32_t world = 0;
    rsw::detail::copy_device_to_host(&world, boxes.worlds + box, sizeof(world), stream_handle_);
    const std::uint32_t none = BoxSummary::kNoBox;
    rsw::detail::copy_host_to_device(&frame_.data()->first_bad_world, &none, sizeof(none),
                                     stream_handle_);
    synchronize(stream_handle_);
    return world_out_of_range(box, world);
  }

  // "box 7 has ...", from the box's coordinates on the device.
  std::string describe_box(const kernels::BoxView& boxes, std::uint32_t box) {
    float low[3];
    float high[3];
    const std::size_t at = std::size_t{box} * boxes.stride;
    for (int axis = 0; axis < 3; ++axis) {
      rsw::detail::copy_device_to_host(&low[axis], boxes.min[axis] + at, sizeof(float),
                                       stream_handle_);
      rsw::detail::copy_device_to_host(&high[axis], boxes.max[axis] + at, sizeof(float),
                                       stream_handle_);
    }
    synchronize(stream_handle_);
    return describe_invalid_box(box, low, high);
  }

  // Ordered with the default stream: device arrays a caller readied there are ready for it.
  Stream own_stream_{StreamOrder::WithDefaultStream};
  StreamHandle stream_handle_ = nullptr;
  bool stage_times_ = true;         // the frame's FrameRequest::stage_times
  std::uint32_t stages_timed_ = 0;  // stage_bit of each stage this frame timed
  unsigned int multiprocessors_ = 1;
  std::unordered_map<const void*, unsigned int> resident_blocks_;  // by kernel
  StageProfiler profiler_{{.history_frames = 1}};
  sort::Sorter sorter_;
  sort::Sorter cell_sorter_;
  sort::Sorter pair_sorter_;
  // The user's boxes when they come from the host.
  DeviceBuffer<float> records_;
  std::array<DeviceBuffer<float>, 6> arrays_;
  DeviceBuffer<std::uint32_t> categories_;
  DeviceBuffer<std::uint32_t> masks_;
  DeviceBuffer<std::uint32_t> worlds_;
  // Sorting.
  DeviceBuffer<kernels::PackedBox> packed_;  // the user's boxes, in last frame's order
  DeviceBuffer<std::uint32_t> order_;        // the coherence state: last frame's sorted order
  bool order_carried_ = false;               // order_ is last frame's, not a fresh iota
  // The small-worlds frame: whether the last frame's worlds were small, and whether no frame
  // of this scene has shown them not to be (a long walk).
  bool small_worlds_next_ = false;
  bool small_worlds_allowed_ = true;
  // Worlds in runs: the table while the boxes keep to it, and the frames until the runs are
  // looked for again after boxes were found not in runs.
  WorldRuns world_runs_;
  std::uint32_t frames_to_runs_ = 0;
  bool swept_whole_ = false;  // this frame swept worlds whole: no cells
  bool by_runs_ = false;      // and did so by their runs: no sort of every box
  // The listing kept for the frames after: what it remembers of each box, whether the next
  // frame may sweep it (made for plain_request_), how many frames it served, and
  // how far the minima may drift from their keys before the boxes are listed afresh. The
  // margin of the next listing kept, and frames until listings are kept again.
  DeviceBuffer<kernels::ListedBox> listed_boxes_;
  bool listing_kept_ = false;
  std::uint32_t frames_on_listing_ = 0;
  bool listing_room_ = true;  // its frames tested at most half the extra candidates allowed
  // The candidates of the last frame listed without a margin, and its request.
  std::size_t plain_candidates_ = 0;
  FrameRequest plain_request_;
  float drift_allowed_ = 0;
  float margin_ = kFirstMargin;
  std::uint32_t frames_to_kept_listing_ = 0;
  DeviceBuffer<std::uint32_t> keys_;
  DeviceBuffer<std::uint32_t> key_boxes_;  // the sort's values: each key's box
  DeviceBuffer<kernels::SweepRecord> sorted_;
  // Listings.
  DeviceBuffer<std::uint8_t> listing_tiles_;  // gather_boxes' scan: its tile states
  kernels::ListingTiles listing_scan_;        // placed in listing_tiles_
  DeviceBuffer<std::uint32_t> listing_cells_;
  DeviceBuffer<std::uint32_t> listing_boxes_;
  DeviceBuffer<kernels::SweepRecord> listing_records_;
  std::uint32_t listing_count_ = 0;
  // Candidates and pairs; the long runs, by listing.
  DeviceBuffer<std::uint32_t> long_listings_;
  std::uint32_t long_count_ = 0;
  DeviceBuffer<std::uint32_t> candidate_counts_;
  DeviceBuffer<unsigned long long> candidate_offsets_;
  DeviceBuffer<std::uint8_t> scan_temp_;
  DeviceBuffer<Pair> pairs_;
  DeviceBuffer<Pair> sorted_pairs_;
  DeviceBuffer<std::uint32_t> pair_keys_;
  DeviceBuffer<std::uint32_t> pair_order_;
  std::size_t pair_count_ = 0;
  std::size_t candidate_count_ = 0;
  DeviceBuffer<kernels::FrameCounters> frame_;
  PinnedBuffer<kernels::FrameCounters> host_frame_{1};
  PinnedBuffer<Pair> host_pairs_;
  bool host_pairs_ready_ = false;
  // The worlds' offsets (group_by_world).
  DeviceBuffer<std::uint32_t> world_offsets_;
  std::size_t world_offset_count_ = 0;
  PinnedBuffer<std::uint32_t> host_offsets_;
  bool host_offsets_ready_ = false;
};

}  // namespace

std::unique_ptr<SweepBackend> make_cuda_sweep() {
  return std::make_unique<CudaSweep>();
}

}  // namespace rsw::physics::detail
