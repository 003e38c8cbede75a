#include "broadphase_bench.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <random>
#include <stdexcept>

#include "box_files.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/engine/text.hpp"
#include "rsw/physics/bounds.hpp"
#include "rsw/physics/broad_phase.hpp"
#include "rsw/workloads/box_scenes.hpp"

namespace rsw::bench {
namespace {

workloads::BoxScene parse_scene(std::string_view name) {
  for (const workloads::BoxScene scene : workloads::all_box_scenes()) {
    if (ascii_lowercase(workloads::to_string(scene)) == ascii_lowercase(name)) return scene;
  }
  throw Error(ErrorKind::InvalidArgument,
              "unknown scene '" + std::string(name) + "' (" + scene_names() + ")");
}

struct Input {
  std::vector<physics::Aabb> boxes;
  std::string name;
};

// The stages of BroadPhaseStats, as they go into the profiler and the row.
constexpr std::string_view kStages[] = {"upload", "keys",      "sort",     "list",
                                        "sweep",  "pair_sort", "download", "total"};

// The boxes as six device arrays, refreshed each frame outside the timed region: what a
// simulation whose bodies live on the GPU hands the broad phase.
class DeviceInput {
 public:
  void upload(const std::vector<physics::Aabb>& boxes) {
    host_.assign(boxes);
    device_.upload(host_.view());
    synchronize(nullptr);
  }
  physics::DeviceAabbArrays view() const { return device_.view(); }

 private:
  physics::AabbStore host_;
  physics::DeviceAabbStore device_;
};

// The pairs `found` (of all of `boxes`) among a sample of `size` of them, those whose minimum on
// x ranks in the stretch from the middle, checked against the CPU backend's pairs of the
// sample alone (the same mode): their pairs among themselves are the same whoever else there
// is. Returns the sample's boxes and pairs; a difference is an error naming the counts.
struct Sample {
  std::size_t boxes = 0;
  std::size_t pairs = 0;
};
Sample check_sample(const std::vector<physics::Aabb>& boxes, physics::PairView found,
                    std::size_t size, physics::SweepMode mode) {
  size = std::min(size, boxes.size());
  if (size == 0) return {};
  std::vector<std::uint32_t> by_x(boxes.size());
  for (std::uint32_t i = 0; i < by_x.size(); ++i)
    by_x[i] = i;
  const auto first = static_cast<std::ptrdiff_t>((boxes.size() - size) / 2);
  const auto last = first + static_cast<std::ptrdiff_t>(size);
  const auto min_x = [&](std::uint32_t i) { return boxes[i].min.x; };
  std::ranges::nth_element(by_x, by_x.begin() + first, {}, min_x);
  std::ranges::nth_element(by_x.begin() + first, by_x.begin() + last - 1, by_x.end(), {}, min_x);
  std::vector<std::uint32_t> sample(by_x.begin() + first, by_x.begin() + last);
  std::ranges::sort(sample);
  by_x = {};
  constexpr std::uint32_t kOut = 0xFFFFFFFFu;
  std::vector<std::uint32_t> place(boxes.size(), kOut);  // a box's place in the sample
  std::vector<physics::Aabb> sample_boxes(sample.size());
  for (std::uint32_t k = 0; k < sample.size(); ++k) {
    place[sample[k]] = k;
    sample_boxes[k] = boxes[sample[k]];
  }
  std::vector<physics::Pair> expected;
  {
    physics::BroadPhase cpu({.backend = rsw::Backend::Cpu, .mode = mode});
    cpu.update(sample_boxes);
    for (const physics::Pair& pair : cpu.find_pairs())
      expected.push_back({sample[pair.a], sample[pair.b]});  // sample is sorted: a < b holds
  }
  std::vector<physics::Pair> got;
  for (const physics::Pair& pair : found) {
    if (place[pair.a] != kOut && place[pair.b] != kOut) got.push_back(pair);
  }
  std::ranges::sort(expected);
  std::ranges::sort(got);
  if (got != expected) {
    std::vector<physics::Pair> missing;
    std::vector<physics::Pair> extra;
    std::ranges::set_difference(expected, got, std::back_inserter(missing));
    std::ranges::set_difference(got, expected, std::back_inserter(extra));
    throw std::runtime_error(
        "the frame's pairs among a sample of " + std::to_string(sample.size()) +
        " boxes differ from the CPU backend's: " + std::to_string(missing.size()) + " missing, " +
        std::to_string(extra.size()) + " extra, of " + std::to_string(expected.size()));
  }
  return {sample.size(), expected.size()};
}

Row run_frames(const Input& input, rsw::Backend backend, physics::SweepMode mode, bool on_device,
               bool stage_times, const BroadPhaseBenchOptions& options, bool write_pairs) {
  physics::BroadPhase broad_phase({.backend = backend, .mode = mode, .stage_times = stage_times});
  std::vector<physics::Aabb> boxes =
      with_host_allocation("a moving copy of the " + std::to_string(input.boxes.size()) + " boxes",
                           input.boxes.size() * sizeof(physics::Aabb), [&] { return input.boxes; });
  std::optional<DeviceInput> device_input;
  if (on_device) device_input.emplace();
  std::mt19937 generator(std::random_device{}());
  StageProfiler profiler({.history_frames = options.frames});
  physics::BroadPhaseStats last;
  std::size_t sort_passes_run = 0;
  std::size_t sorts_presorted = 0;
  std::size_t listings_reused = 0;
  for (std::size_t frame = 0; frame < options.warmup + options.frames; ++frame) {
    if (frame == options.warmup) profiler.reset();
    if (options.motion > 0 && frame > 0)
      workloads::jitter(boxes, options.motion, static_cast<std::uint32_t>(generator()));
    if (on_device) {
      device_input->upload(boxes);
      broad_phase.update(device_input->view());
      broad_phase.find_pairs_device();
    } else {
      broad_phase.update(boxes);
      broad_phase.find_pairs();
    }
    last = broad_phase.stats();
    const double times[] = {last.upload_ms, last.keys_ms,      last.sort_ms,     last.list_ms,
                            last.sweep_ms,  last.pair_sort_ms, last.download_ms, last.total_ms};
    for (std::size_t stage = 0; stage < std::size(kStages); ++stage) {
      profiler.add_sample(kStages[stage], times[stage], backend);
    }
    sort_passes_run += static_cast<std::size_t>(last.sort.passes_run);
    sorts_presorted += last.sort.presorted ? 1 : 0;
    listings_reused += last.listing_reused ? 1 : 0;
    profiler.end_frame();
  }
  std::optional<Sample> sample;
  if (options.check_sample > 0) {
    sample = check_sample(boxes, broad_phase.find_pairs(), options.check_sample, mode);
  }
  if (write_pairs) {  // the pairs of the boxes as given, not of the jittered frames
    broad_phase.update(input.boxes);
    write_pairs_csv(options.pairs_file, broad_phase.find_pairs());
  }

  Row row = row_from_profile(profiler, "total");
  for (std::string_view stage : kStages) {
    if (stage == "total") continue;
    row.metrics[std::string(stage) + "_ms"] = profiler.stats(stage)->median_ms;
  }
  const double sort_ms = profiler.stats("sort")->median_ms;
  row.metrics["sort_share"] = row.ms_median > 0 ? sort_ms / row.ms_median : 0.0;
  row.metrics["pairs"] = last.pairs;
  row.metrics["cell_entries"] = last.cell_entries;
  row.metrics["candidates"] = last.candidates;
  row.metrics["pairs_per_box"] =
      last.boxes > 0 ? static_cast<double>(last.pairs) / static_cast<double>(last.boxes) : 0.0;
  // Candidates tested for every pair found: each one a read the sweep makes.
  row.metrics["candidates_per_pair"] =
      last.pairs > 0 ? static_cast<double>(last.candidates) / static_cast<double>(last.pairs) : 0.0;
  const auto frames = static_cast<double>(options.warmup + options.frames);
  row.metrics["sort_passes_run"] = static_cast<double>(sort_passes_run) / frames;
  row.metrics["sort_presorted"] = static_cast<double>(sorts_presorted) / frames;
  // Frames swept on a listing kept from a frame before (no sort, no listing).
  row.metrics["listing_reused"] = static_cast<double>(listings_reused) / frames;
  if (sample) {  // checked against the CPU backend
    row.metrics["sample_boxes"] = static_cast<double>(sample->boxes);
    row.metrics["sample_pairs"] = static_cast<double>(sample->pairs);
  }
  return row;
}

}  // namespace

std::string scene_names() {
  std::string names;
  for (const workloads::BoxScene scene : workloads::all_box_scenes()) {
    if (!names.empty()) names += ", ";
    names += ascii_lowercase(workloads::to_string(scene));
  }
  return names;
}

void run_broadphase_bench(const BroadPhaseBenchOptions& options, Report& report) {
  std::vector<Input> inputs;
  if (!options.boxes_file.empty()) {
    inputs.push_back({read_boxes_csv(options.boxes_file), "file"});
  } else {
    for (const std::size_t count : options.sizes) {
      for (const std::string& scene : options.scenes) {
        const std::string name = ascii_lowercase(scene);
        inputs.push_back(with_host_allocation(
            "the " + std::to_string(count) + " boxes of the " + name + " scene",
            count * sizeof(physics::Aabb), [&] {
              return Input{workloads::make_boxes(count, parse_scene(scene), std::random_device{}(),
                                                 options.pairs_per_box),
                           name};
            }));
      }
    }
  }
  bool pairs_written = options.pairs_file.empty();
  for (const Input& input : inputs) {
    for (const std::string& mode_name : options.modes) {
      if (mode_name != "cells" && mode_name != "xsweep") {
        throw Error(ErrorKind::InvalidArgument, "unknown mode '" + mode_name + "' (cells, xsweep)");
      }
      const physics::SweepMode mode =
          mode_name == "cells" ? physics::SweepMode::Cells : physics::SweepMode::AxisSweep;
      for (const std::string& backend_name : options.backends) {
        for (const std::string& input_name : options.inputs) {
          if (input_name != "host" && input_name != "device") {
            throw Error(ErrorKind::InvalidArgument,
                        "unknown input '" + input_name + "' (host, device)");
          }
          const rsw::Backend backend = parse_backend(backend_name);
          for (const std::string& timing : options.stage_times) {
            if (timing != "on" && timing != "off") {
              throw Error(ErrorKind::InvalidArgument,
                          "unknown --stage-times '" + timing + "' (on, off)");
            }
            Row row = run_frames(input, backend, mode, input_name == "device", timing == "on",
                                 options, !pairs_written);
            pairs_written = true;
            row.bench = "broad";
            row.algo = std::string(to_string(backend)) + (input_name == "device" ? "-device" : "") +
                       (timing == "on" ? "" : "-untimed");
            row.n = input.boxes.size();
            row.dist = input.name;
            row.mode = mode_name;
            report.add(std::move(row));
          }
        }
      }
    }
  }
}

}  // namespace rsw::bench
