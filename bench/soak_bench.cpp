#include "soak_bench.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "rsw/engine/backend.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/engine/parallel.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/physics/broad_phase.hpp"

namespace rsw::bench {
namespace {

// Brute force is the reference of a CPU soak; past this many boxes it would take hours.
constexpr std::size_t kMostBruteForceBoxes = 20'000;

// Unit cubes drifting at constant speed through a cube of side `side`, bouncing off its
// walls. A frame's positions follow from the frame number alone, so that any frame can be
// made again (and on many threads).
class DriftingBoxes {
 public:
  DriftingBoxes(std::size_t count, double pairs_per_box, std::uint32_t seed) {
    // A unit cube overlaps another whose corner lies within a cube of side 2 (see make_boxes).
    side_ = static_cast<float>(
        std::cbrt(std::max(8.0 * static_cast<double>(count) / (2.0 * pairs_per_box), 1.0)));
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> position(0.0f, side_);
    std::uniform_real_distribution<float> velocity(-0.02f, 0.02f);
    start_.resize(count);
    velocity_.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      start_[i] = {position(generator), position(generator), position(generator)};
      velocity_[i] = {velocity(generator), velocity(generator), velocity(generator)};
    }
  }

  /// The boxes at `frame`, drawn towards the centre by `scale` (1: where they are).
  void place(std::size_t frame, float scale, std::vector<physics::Aabb>& boxes) const {
    const float centre = side_ / 2;
    const auto time = static_cast<float>(frame);
    for_each_part(start_.size(), 64 * 1024, [&](std::size_t first, std::size_t last) {
      for (std::size_t i = first; i < last; ++i) {
        const physics::Vec3 p{bounce(start_[i].x + velocity_[i].x * time),
                              bounce(start_[i].y + velocity_[i].y * time),
                              bounce(start_[i].z + velocity_[i].z * time)};
        const physics::Vec3 low{centre + (p.x - centre) * scale, centre + (p.y - centre) * scale,
                                centre + (p.z - centre) * scale};
        boxes[i] = {low, {low.x + 1, low.y + 1, low.z + 1}};
      }
    });
  }

 private:
  // x folded into [0, side]: a wall reflects the box.
  float bounce(float x) const {
    const float period = 2 * side_;
    const float folded = x - period * std::floor(x / period);
    return folded <= side_ ? folded : period - folded;
  }

  float side_ = 1;
  std::vector<physics::Vec3> start_;
  std::vector<physics::Vec3> velocity_;
};

double mib(std::size_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

double growth(std::size_t from, std::size_t to) {
  return from == 0
             ? 0.0
             : (static_cast<double>(to) - static_cast<double>(from)) / static_cast<double>(from);
}

// The first place where two sorted pair lists differ, for the failure's message.
std::string describe_difference(physics::PairView found, physics::PairView expected) {
  const auto [in_found, in_expected] = std::ranges::mismatch(found, expected);
  const auto describe = [](physics::PairView pairs, physics::PairView::iterator at) {
    return at == pairs.end() ? std::string("nothing")
                             : "(" + std::to_string(at->a) + ", " + std::to_string(at->b) + ")";
  };
  return describe(found, in_found) + " where the reference has " + describe(expected, in_expected);
}

}  // namespace

void run_soak_bench(const SoakBenchOptions& options, Report& report) {
  const Backend backend = resolve_backend(parse_backend(options.backend));
  const std::size_t count = options.boxes;
  if (options.memory_from > options.frames) {
    throw Error(ErrorKind::InvalidArgument, "--memory-from " + std::to_string(options.memory_from) +
                                                " is past the last of " +
                                                std::to_string(options.frames) + " frames");
  }
  if (backend == Backend::Cpu && count > kMostBruteForceBoxes) {
    throw Error(ErrorKind::InvalidArgument,
                "a CPU soak is checked by brute force, which takes at most " +
                    std::to_string(kMostBruteForceBoxes) + " boxes; got " + std::to_string(count));
  }
  const std::uint32_t seed = options.seed != 0 ? options.seed : std::random_device{}();
  const DriftingBoxes drifting = with_host_allocation(
      "the soak's " + std::to_string(count) + " boxes", count * 2 * sizeof(physics::Vec3),
      [&] { return DriftingBoxes(count, options.pairs_per_box, seed); });
  std::vector<physics::Aabb> boxes;
  resize_host(boxes, count, "the soak's boxes");
  const auto cluster_scale =
      static_cast<float>(std::cbrt(options.pairs_per_box / options.cluster_pairs_per_box));

  const physics::BroadPhaseOptions ordinary{.backend = backend};
  physics::BroadPhaseOptions checked = ordinary;
  checked.sorted_pairs = true;
  physics::BroadPhase soaked(ordinary);
  physics::BroadPhase reference(
      backend == Backend::Cuda
          ? physics::BroadPhaseOptions{.backend = Backend::Cpu, .sorted_pairs = true}
          : physics::BroadPhaseOptions{.brute_force = true, .sorted_pairs = true});

  StageProfiler profiler({.history_frames = options.frames});
  std::size_t checked_frames = 0;
  std::size_t mismatched_frames = 0;
  std::size_t ordinary_pairs = 0;
  std::size_t most_pairs = 0;
  MemoryUsage memory_from;
  MemoryUsage memory_last;
  for (std::size_t frame = 1; frame <= options.frames; ++frame) {
    const bool clustered = frame % options.cluster_every == 0;
    drifting.place(frame, clustered ? cluster_scale : 1.0f, boxes);
    soaked.set_options(clustered ? checked : ordinary);
    soaked.update(boxes);
    if (clustered) {
      const physics::PairView found = soaked.find_pairs();
      profiler.add_sample("clustered", soaked.stats().total_ms);
      reference.update(boxes);
      const physics::PairView expected = reference.find_pairs();
      ++checked_frames;
      most_pairs = std::max(most_pairs, found.size());
      if (!std::ranges::equal(found, expected)) {
        if (mismatched_frames++ == 0) {
          report.fail("soak frame " + std::to_string(frame) + " (seed " + std::to_string(seed) +
                      "): " + std::to_string(found.size()) + " pairs against the reference's " +
                      std::to_string(expected.size()) +
                      "; first difference: " + describe_difference(found, expected));
        }
      }
    } else {
      if (backend == Backend::Cuda) {
        soaked.find_pairs_device();
      } else {
        soaked.find_pairs();
      }
      profiler.add_sample("frame", soaked.stats().total_ms);
      ordinary_pairs = soaked.stats().pairs;
    }
    profiler.end_frame();
    if (frame == options.memory_from) memory_from = memory_usage();
    if (frame == options.frames) memory_last = memory_usage();
  }

  Row row = row_from_profile(profiler, options.cluster_every == 1 ? "clustered" : "frame");
  row.bench = "soak";
  row.algo = std::string(to_string(backend));
  row.n = count;
  row.dist = "drift+cluster";
  row.mode = "frames";
  row.metrics["frames"] = options.frames;
  row.metrics["seed"] = seed;
  row.metrics["pairs"] = ordinary_pairs;
  if (const auto clustered = profiler.stats("clustered")) {
    row.metrics["clustered_ms"] = clustered->median_ms;
  }
  row.metrics["clustered_max_pairs"] = most_pairs;
  row.metrics["checked_frames"] = checked_frames;
  row.metrics["mismatched_frames"] = mismatched_frames;
  row.metrics["memory_from_frame"] = options.memory_from;
  row.metrics["host_rss_mib_from"] = mib(memory_from.host_resident_bytes);
  row.metrics["host_rss_mib_last"] = mib(memory_last.host_resident_bytes);
  row.metrics["device_used_mib_from"] = mib(memory_from.device_used_bytes);
  row.metrics["device_used_mib_last"] = mib(memory_last.device_used_bytes);
  const double host_growth =
      growth(memory_from.host_resident_bytes, memory_last.host_resident_bytes);
  const double device_growth = growth(memory_from.device_used_bytes, memory_last.device_used_bytes);
  row.metrics["host_rss_growth"] = host_growth;
  row.metrics["device_used_growth"] = device_growth;
  report.add(std::move(row));

  const auto check_growth = [&](std::string_view what, double grown, std::size_t from,
                                std::size_t last) {
    if (grown <= options.max_memory_growth) return;
    report.fail(std::string(what) + " grew " + std::to_string(grown * 100) + "% from frame " +
                std::to_string(options.memory_from) + " to frame " +
                std::to_string(options.frames) + " (" + std::to_string(mib(from)) + " MiB to " +
                std::to_string(mib(last)) + " MiB), more than " +
                std::to_string(options.max_memory_growth * 100) + "%");
  };
  check_growth("host RSS", host_growth, memory_from.host_resident_bytes,
               memory_last.host_resident_bytes);
  check_growth("device memory in use", device_growth, memory_from.device_used_bytes,
               memory_last.device_used_bytes);
}

}  // namespace rsw::bench
