#include "soak_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
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
// Frames between the progress lines of a run.
constexpr std::size_t kProgressEvery = 1000;

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

// What a pair set is compared by: its size and two sums of independent 64-bit hashes of its
// pairs, which no order changes. Two different sets of the same size agree on both sums with a
// chance of about 2^-128, and a pair reported twice changes them, so the fingerprints of the
// two backends' pairs stand for the sets at the cost of one read of each (sorting 10^7 pairs
// to compare them would take most of a soak's time).
struct PairSetFingerprint {
  std::size_t count = 0;
  std::uint64_t first_sum = 0;
  std::uint64_t second_sum = 0;
  std::size_t not_ordered = 0;  // pairs with a >= b, which no backend may give

  bool same_set(const PairSetFingerprint& other) const noexcept {
    return count == other.count && first_sum == other.first_sum && second_sum == other.second_sum;
  }
};

// SplitMix64's finaliser: every input bit moves every output bit.
std::uint64_t mix(std::uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

PairSetFingerprint fingerprint(physics::PairView pairs) {
  const std::size_t hardware = std::max(1u, std::thread::hardware_concurrency());
  const auto threads = static_cast<int>(std::clamp<std::size_t>(pairs.size() >> 20, 1, hardware));
  std::vector<PairSetFingerprint> parts(static_cast<std::size_t>(threads));
  run_on_threads(threads, [&](int thread) {
    const auto index = static_cast<std::size_t>(thread);
    const std::size_t first = pairs.size() * index / parts.size();
    const std::size_t last = pairs.size() * (index + 1) / parts.size();
    PairSetFingerprint& part = parts[index];
    for (std::size_t i = first; i < last; ++i) {
      const std::uint64_t key = std::uint64_t{pairs[i].a} << 32 | pairs[i].b;
      part.first_sum += mix(key);
      part.second_sum += mix(key ^ 0x9e3779b97f4a7c15ull);
      part.not_ordered += pairs[i].a >= pairs[i].b ? 1 : 0;
    }
    part.count = last - first;
  });
  PairSetFingerprint total;
  for (const PairSetFingerprint& part : parts) {
    total.count += part.count;
    total.first_sum += part.first_sum;
    total.second_sum += part.second_sum;
    total.not_ordered += part.not_ordered;
  }
  return total;
}

// How two pair lists differ, for a failure's message: sizes and the first pair in one and
// not the other.
std::string describe_difference(physics::PairView found, physics::PairView expected) {
  std::vector<physics::Pair> got(found.begin(), found.end());
  std::vector<physics::Pair> want(expected.begin(), expected.end());
  std::ranges::sort(got);
  std::ranges::sort(want);
  const auto [in_got, in_want] = std::ranges::mismatch(got, want);
  const auto describe = [](const std::vector<physics::Pair>& pairs, auto at) {
    return at == pairs.end() ? std::string("nothing")
                             : "(" + std::to_string(at->a) + ", " + std::to_string(at->b) + ")";
  };
  return std::to_string(found.size()) + " pairs against the reference's " +
         std::to_string(expected.size()) + "; in sorted order the first difference is " +
         describe(got, in_got) + " where the reference has " + describe(want, in_want);
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

  physics::BroadPhase soaked({.backend = backend});
  physics::BroadPhase reference(backend == Backend::Cuda
                                    ? physics::BroadPhaseOptions{.backend = Backend::Cpu}
                                    : physics::BroadPhaseOptions{.brute_force = true});

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
    soaked.update(boxes);
    if (clustered) {
      const physics::PairView found = soaked.find_pairs();
      profiler.add_sample("clustered", soaked.stats().total_ms);
      reference.update(boxes);
      const physics::PairView expected = reference.find_pairs();
      ++checked_frames;
      most_pairs = std::max(most_pairs, found.size());
      const PairSetFingerprint got = fingerprint(found);
      if (!got.same_set(fingerprint(expected)) || got.not_ordered > 0) {
        if (mismatched_frames++ == 0) {
          report.fail("soak frame " + std::to_string(frame) + " (seed " + std::to_string(seed) +
                      "): " + std::to_string(got.not_ordered) + " pairs with a >= b; " +
                      describe_difference(found, expected));
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
    if (frame % kProgressEvery == 0) {  // a long run shows where it is
      std::printf("soak: frame %zu of %zu, %zu clustered frames checked\n", frame, options.frames,
                  checked_frames);
      std::fflush(stdout);
    }
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
