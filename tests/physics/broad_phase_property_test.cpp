// A randomized property test of the CPU broad phase: thousands of small scenes from
// adversarial generators (integer ties, faces one ulp apart, points and planes, giant boxes,
// huge and denormal coordinates, NaN and infinities under InvalidBoxes::Exclude, duplicates),
// each through one long-lived broad phase in a random mode, axis and sort order, compared with
// the brute-force backend. Every run draws a fresh seed and a failure prints it; to run a
// seed again, set RSW_PROPERTY_SEED to it.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "broad_phase_checks.hpp"
#include "rsw/physics/broad_phase.hpp"

namespace rsw::test {
namespace {

using physics::Aabb;
using physics::Vec3;

constexpr int kScenes = 2500;
constexpr std::size_t kMostBoxes = 5000;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

enum class Generator {
  IntegerTies,      // small integer corners and sizes: faces touch exactly, keys tie
  UlpFaces,         // pairs of boxes whose faces touch, or miss by one ulp
  PointsAndPlanes,  // boxes of zero extent on one, two or three axes
  GiantBoxes,       // ordinary boxes with a few that span everything
  ExtremeValues,    // coordinates near +-1e38, denormals, -0.0 and +0.0
  InvalidMixedIn,   // ordinary boxes with NaN, infinite and inverted ones among them
  Duplicates,       // a few boxes repeated many times
  kCount,
};

const char* name_of(Generator generator) {
  constexpr std::array<const char*, static_cast<int>(Generator::kCount)> kNames = {
      "integer ties",   "ulp faces",        "points and planes", "giant boxes",
      "extreme values", "invalid mixed in", "duplicates"};
  return kNames[static_cast<std::size_t>(generator)];
}

// Sizes from 0 to kMostBoxes, most of them small: brute force is O(n^2).
std::size_t draw_count(std::mt19937& random) {
  const int bucket = std::uniform_int_distribution<int>(0, 9)(random);
  if (bucket == 0) return std::uniform_int_distribution<std::size_t>(0, 3)(random);
  if (bucket < 7) return std::uniform_int_distribution<std::size_t>(0, 200)(random);
  if (bucket < 9) return std::uniform_int_distribution<std::size_t>(0, 1500)(random);
  return std::uniform_int_distribution<std::size_t>(0, kMostBoxes)(random);
}

Aabb box(Vec3 low, Vec3 high) {
  return {low, high};
}

std::vector<Aabb> generate(Generator generator, std::size_t count, std::mt19937& random) {
  std::vector<Aabb> boxes;
  boxes.reserve(count);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  const auto chance = [&](float p) { return unit(random) < p; };
  const float span = std::cbrt(static_cast<float>(count) + 1.0f) * 2.0f;
  const auto ordinary = [&] {
    const Vec3 low{unit(random) * span, unit(random) * span, unit(random) * span};
    const float size = 0.25f + unit(random) * 2.0f;
    return box(low, {low.x + size, low.y + size, low.z + size});
  };
  switch (generator) {
    case Generator::IntegerTies: {
      std::uniform_int_distribution<int> corner(0, static_cast<int>(span) + 2);
      std::uniform_int_distribution<int> size(0, 3);
      while (boxes.size() < count) {
        const Vec3 low{static_cast<float>(corner(random)), static_cast<float>(corner(random)),
                       static_cast<float>(corner(random))};
        boxes.push_back(box(low, {low.x + static_cast<float>(size(random)),
                                  low.y + static_cast<float>(size(random)),
                                  low.z + static_cast<float>(size(random))}));
      }
      break;
    }
    case Generator::UlpFaces:
      while (boxes.size() < count) {
        const Aabb first = ordinary();
        boxes.push_back(first);
        if (boxes.size() == count) break;
        // The next box starts where the first ends on one axis: exactly, or one ulp past.
        Aabb second = ordinary();
        const int axis = std::uniform_int_distribution<int>(0, 2)(random);
        float* second_low[] = {&second.min.x, &second.min.y, &second.min.z};
        float* second_high[] = {&second.max.x, &second.max.y, &second.max.z};
        const float first_high[] = {first.max.x, first.max.y, first.max.z};
        const float first_low[] = {first.min.x, first.min.y, first.min.z};
        for (int other = 0; other < 3; ++other) {  // overlapping elsewhere
          if (other == axis) continue;
          *second_low[other] = first_low[other];
          *second_high[other] = first_high[other];
        }
        const float touch =
            chance(0.5f) ? first_high[axis] : std::nextafter(first_high[axis], kInf);
        const float extent = *second_high[axis] - *second_low[axis];
        *second_low[axis] = touch;
        *second_high[axis] = touch + extent;
        boxes.push_back(second);
      }
      break;
    case Generator::PointsAndPlanes:
      while (boxes.size() < count) {
        Aabb b = ordinary();
        if (chance(0.5f)) b.max.x = b.min.x;
        if (chance(0.5f)) b.max.y = b.min.y;
        if (chance(0.5f)) b.max.z = b.min.z;
        if (chance(0.2f)) b = box(b.min, b.min);  // a point
        boxes.push_back(b);
      }
      break;
    case Generator::GiantBoxes:
      while (boxes.size() < count) {
        if (chance(0.02f)) {
          const float reach = chance(0.5f) ? 1e30f : span * 2;
          boxes.push_back(box({-reach, -reach, -reach}, {reach, reach, reach}));
        } else {
          boxes.push_back(ordinary());
        }
      }
      break;
    case Generator::ExtremeValues: {
      const std::array<float, 10> values = {-3e38f, -1e38f, -1.0f, -0.0f, 0.0f,
                                            1e-40f, 1e-45f, 1.0f,  1e38f, 3e38f};
      std::uniform_int_distribution<std::size_t> pick(0, values.size() - 1);
      while (boxes.size() < count) {
        float low[3];
        float high[3];
        for (int axis = 0; axis < 3; ++axis) {
          const float a = values[pick(random)];
          const float b = values[pick(random)];
          low[axis] = std::min(a, b);
          high[axis] = std::max(a, b);
        }
        boxes.push_back(box({low[0], low[1], low[2]}, {high[0], high[1], high[2]}));
      }
      break;
    }
    case Generator::InvalidMixedIn:
      while (boxes.size() < count) {
        Aabb b = ordinary();
        if (chance(0.15f)) {
          float* bounds[] = {&b.min.x, &b.min.y, &b.min.z, &b.max.x, &b.max.y, &b.max.z};
          const int which = std::uniform_int_distribution<int>(0, 5)(random);
          const int kind = std::uniform_int_distribution<int>(0, 3)(random);
          if (kind == 0) *bounds[which] = kNaN;
          if (kind == 1) *bounds[which] = kInf;
          if (kind == 2) *bounds[which] = -kInf;
          if (kind == 3) b.max.y = b.min.y - 1.0f;  // inverted
        }
        boxes.push_back(b);
      }
      break;
    case Generator::Duplicates: {
      std::vector<Aabb> originals(1 + count / 50);
      for (Aabb& original : originals)
        original = ordinary();
      std::uniform_int_distribution<std::size_t> pick(0, originals.size() - 1);
      while (boxes.size() < count)
        boxes.push_back(originals[pick(random)]);
      break;
    }
    case Generator::kCount: break;
  }
  return boxes;
}

std::uint32_t master_seed() {
  if (const char* text = std::getenv("RSW_PROPERTY_SEED")) {
    return static_cast<std::uint32_t>(std::strtoul(text, nullptr, 10));
  }
  return std::random_device{}();
}

TEST(BroadPhaseProperty, RandomScenesAgreeWithBruteForce) {
  const std::uint32_t seed = master_seed();
  std::mt19937 random(seed);
  // One broad phase for every scene: the sorted order it carries meets scenes of every size.
  physics::BroadPhase broad_phase({.backend = Backend::Cpu});
  physics::BroadPhase oracle(
      {.brute_force = true, .invalid_boxes = physics::InvalidBoxes::Exclude});
  constexpr std::array kAxes = {physics::SweepAxis::X, physics::SweepAxis::Y, physics::SweepAxis::Z,
                                physics::SweepAxis::LargestVariance};
  for (int scene = 0; scene < kScenes; ++scene) {
    const auto generator = static_cast<Generator>(
        std::uniform_int_distribution<int>(0, static_cast<int>(Generator::kCount) - 1)(random));
    const std::size_t count = draw_count(random);
    const std::vector<Aabb> boxes = generate(generator, count, random);
    const bool filtered = std::uniform_int_distribution<int>(0, 3)(random) == 0;
    std::vector<std::uint32_t> categories;
    std::vector<std::uint32_t> masks;
    if (filtered) {
      std::uniform_int_distribution<std::uint32_t> bits(0, 7);
      for (std::size_t i = 0; i < count; ++i) {
        categories.push_back(1u << bits(random));
        masks.push_back(~(1u << bits(random)));
      }
    }
    const physics::FilterArrays filter{.categories = categories, .masks = masks};
    broad_phase.set_options(
        {.backend = Backend::Cpu,
         .axis = kAxes[std::uniform_int_distribution<std::size_t>(0, kAxes.size() - 1)(random)],
         .mode = std::uniform_int_distribution<int>(0, 1)(random) == 0
                     ? physics::SweepMode::Cells
                     : physics::SweepMode::AxisSweep,
         .invalid_boxes = physics::InvalidBoxes::Exclude,
         .sorted_pairs = std::uniform_int_distribution<int>(0, 1)(random) == 0});
    const std::string context = "seed " + std::to_string(seed) + " (RSW_PROPERTY_SEED), scene " +
                                std::to_string(scene) + ": " + name_of(generator) + ", " +
                                std::to_string(count) + " boxes" + (filtered ? ", filtered" : "");
    SCOPED_TRACE(context);
    oracle.update(boxes, filter);
    const std::vector<physics::Pair> expected = sorted_copy(oracle.find_pairs());
    broad_phase.update(boxes, filter);
    ASSERT_TRUE(same_pair_set(expected, broad_phase.find_pairs()));
    ASSERT_EQ(broad_phase.stats().excluded_boxes, oracle.stats().excluded_boxes);
    if (broad_phase.options().sorted_pairs) {
      const physics::PairView pairs = broad_phase.find_pairs();
      ASSERT_TRUE(std::ranges::equal(pairs, expected)) << "sorted_pairs is not in (a, b) order";
    }
  }
}

}  // namespace
}  // namespace rsw::test
