// The CPU broad phase when host memory runs out: the failure, met on a sweep thread, reaches
// the caller of update() as rsw::Error(OutOfMemory), and the broad phase works afterwards.
// The process's address space is limited with RLIMIT_AS (what `ulimit -v` sets), so that the
// limit is met whatever the machine's memory; an AddressSanitizer build reserves terabytes of
// address space up front and cannot run under such a limit.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <vector>

#include "broad_phase_checks.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/physics/broad_phase.hpp"

namespace rsw::test {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif

// Limits the address space to `bytes` for its lifetime (the soft limit; the hard one stays).
class AddressSpaceLimit {
 public:
  explicit AddressSpaceLimit(rlim_t bytes) {
    getrlimit(RLIMIT_AS, &saved_);
    rlimit limited = saved_;
    limited.rlim_cur = bytes;
    applied_ = setrlimit(RLIMIT_AS, &limited) == 0;
  }
  ~AddressSpaceLimit() { setrlimit(RLIMIT_AS, &saved_); }
  AddressSpaceLimit(const AddressSpaceLimit&) = delete;
  AddressSpaceLimit& operator=(const AddressSpaceLimit&) = delete;

  bool applied() const noexcept { return applied_; }

 private:
  rlimit saved_{};
  bool applied_ = false;
};

// 100,000 identical boxes make 5 * 10^9 pairs (40 GB): more than 4 GB of address space holds,
// so a sweep thread's pair list fails to grow part-way.
TEST(BroadPhaseMemory, AnAllocationFailureOnASweepThreadReachesTheCaller) {
  if (kAddressSanitizer) GTEST_SKIP() << "RLIMIT_AS cannot limit an AddressSanitizer build";
  const std::vector<physics::Aabb> identical(100'000, physics::Aabb{{0, 0, 0}, {1, 1, 1}});
  physics::BroadPhase broad_phase({.backend = Backend::Cpu});
  {
    const AddressSpaceLimit limit(rlim_t{4'000'000} * 1024);  // ulimit -v 4000000
    ASSERT_TRUE(limit.applied());
    try {
      broad_phase.update(identical);
      FAIL() << "5 * 10^9 pairs fit in 4 GB";
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), ErrorKind::OutOfMemory) << error.what();
      EXPECT_NE(std::string(error.what()).find("host memory"), std::string::npos) << error.what();
    }
    EXPECT_TRUE(broad_phase.find_pairs().empty()) << "a failed update leaves no frame";
  }
  // Usable afterwards: the next frames are exact, whatever the failed one left behind.
  for (const std::uint32_t seed : {1u, 2u, 3u}) {
    const std::vector<physics::Aabb> boxes = make_boxes(20'011, BoxScene::Uniform, seed);
    broad_phase.update(boxes);
    EXPECT_TRUE(same_pair_set(oracle_pairs(boxes), broad_phase.find_pairs()));
  }
}

}  // namespace
}  // namespace rsw::test
