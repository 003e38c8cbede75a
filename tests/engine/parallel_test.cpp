// rsw::run_on_threads and rsw::for_each_part: every part runs, and an exception thrown on any
// thread reaches the caller after all threads finished, the first one thrown winning.
#include "rsw/engine/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "rsw/engine/error.hpp"

namespace rsw {
namespace {

TEST(Parallel, EveryTaskRunsOnce) {
  std::vector<std::atomic<int>> runs(8);
  run_on_threads(8, [&](int index) { ++runs[static_cast<std::size_t>(index)]; });
  for (const std::atomic<int>& count : runs)
    EXPECT_EQ(count.load(), 1);
}

TEST(Parallel, PartsCoverTheRangeOnce) {
  for (const std::size_t items :
       {std::size_t{0}, std::size_t{1}, std::size_t{997}, std::size_t{100'003}}) {
    std::vector<int> covered(items, 0);
    for_each_part(
        items, 10,
        [&](std::size_t first, std::size_t last) {
          for (std::size_t i = first; i < last; ++i)
            ++covered[i];
        },
        7);
    EXPECT_EQ(std::accumulate(covered.begin(), covered.end(), std::size_t{0}), items);
    EXPECT_TRUE(std::ranges::all_of(covered, [](int count) { return count == 1; }));
  }
}

TEST(Parallel, AWorkersExceptionReachesTheCallerAfterEveryTaskEnded) {
  std::atomic<int> finished = 0;
  try {
    run_on_threads(6, [&](int index) {
      if (index == 3) throw Error(ErrorKind::OutOfMemory, "task 3 ran out");
      ++finished;
    });
    FAIL() << "the exception was lost";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::OutOfMemory);
    EXPECT_STREQ(error.what(), "task 3 ran out");
  }
  EXPECT_EQ(finished.load(), 5);
}

TEST(Parallel, OneExceptionWinsWhenEveryTaskThrows) {
  EXPECT_THROW(
      run_on_threads(8, [](int index) { throw std::runtime_error(std::to_string(index)); }),
      std::runtime_error);
}

TEST(Parallel, TheCallersOwnPartMayThrowToo) {
  EXPECT_THROW(for_each_part(
                   1000, 1,
                   [](std::size_t first, std::size_t) {
                     if (first == 0) throw Error(ErrorKind::InvalidArgument, "part 0");
                   },
                   4),
               Error);
}

}  // namespace
}  // namespace rsw
