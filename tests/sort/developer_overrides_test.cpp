// The GPU sorts' developer overrides, as read from the environment (no GPU needed): known
// values, the defaults, and unknown values, which are errors naming the variable.
#include "developer_overrides.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "rsw/engine/error.hpp"

namespace rsw::sort::detail {
namespace {

constexpr const char* kVariables[] = {"RSW_SORT_LAUNCH", "RSW_ONESWEEP_TUNING",
                                      "RSW_ONESWEEP_LAYOUT", "RSW_ONESWEEP_HISTOGRAM",
                                      "RSW_FOUR_WAY_TUNING"};

class DeveloperOverridesTest : public ::testing::Test {
 protected:
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }
  static void clear() {
    for (const char* variable : kVariables)
      ::unsetenv(variable);
  }
};

TEST_F(DeveloperOverridesTest, NoneSetLeavesEveryChoiceToTheSort) {
  const DeveloperOverrides overrides = DeveloperOverrides::from_environment();
  EXPECT_EQ(overrides.launch, LaunchMode::Graph);
  EXPECT_FALSE(overrides.onesweep_tuning);
  EXPECT_FALSE(overrides.onesweep_layout);
  EXPECT_FALSE(overrides.onesweep_histogram);
  EXPECT_FALSE(overrides.four_way_tuning);
}

TEST_F(DeveloperOverridesTest, KnownValuesAreRead) {
  ::setenv("RSW_SORT_LAUNCH", "stream", 1);
  ::setenv("RSW_ONESWEEP_TUNING", "384x20/2", 1);
  ::setenv("RSW_ONESWEEP_LAYOUT", "records", 1);
  ::setenv("RSW_ONESWEEP_HISTOGRAM", "lane", 1);
  ::setenv("RSW_FOUR_WAY_TUNING", "256x16", 1);
  const DeveloperOverrides overrides = DeveloperOverrides::from_environment();
  EXPECT_EQ(overrides.launch, LaunchMode::Stream);
  EXPECT_EQ(overrides.onesweep_tuning, "384x20/2");
  EXPECT_EQ(overrides.onesweep_layout, PairLayout::Records);
  EXPECT_EQ(overrides.onesweep_histogram, HistogramKind::ByLane);
  EXPECT_EQ(overrides.four_way_tuning, "256x16");
  ::setenv("RSW_ONESWEEP_LAYOUT", "arrays", 1);
  ::setenv("RSW_ONESWEEP_HISTOGRAM", "digit", 1);
  ::setenv("RSW_SORT_LAUNCH", "graph", 1);
  const DeveloperOverrides others = DeveloperOverrides::from_environment();
  EXPECT_EQ(others.launch, LaunchMode::Graph);
  EXPECT_EQ(others.onesweep_layout, PairLayout::Arrays);
  EXPECT_EQ(others.onesweep_histogram, HistogramKind::ByDigit);
}

TEST_F(DeveloperOverridesTest, UnknownValuesNameTheVariableAndTheChoices) {
  for (const char* variable :
       {"RSW_SORT_LAUNCH", "RSW_ONESWEEP_LAYOUT", "RSW_ONESWEEP_HISTOGRAM"}) {
    ::setenv(variable, "sideways", 1);
    try {
      DeveloperOverrides::from_environment();
      ADD_FAILURE() << variable << "=sideways was accepted";
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
      EXPECT_NE(std::string(error.what()).find(std::string(variable) + "=sideways: not one of "),
                std::string::npos)
          << error.what();
    }
    ::unsetenv(variable);
  }
}

TEST_F(DeveloperOverridesTest, TuningsAreFoundByName) {
  const std::vector<std::string> names = {"256x8", "256x16"};
  EXPECT_EQ(tuning_named(std::nullopt, names, "RSW_FOUR_WAY_TUNING"), std::nullopt);
  EXPECT_EQ(tuning_named("256x16", names, "RSW_FOUR_WAY_TUNING"), 1u);
  try {
    tuning_named("999x1", names, "RSW_FOUR_WAY_TUNING");
    FAIL() << "an unknown tuning was found";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_STREQ(error.what(), "RSW_FOUR_WAY_TUNING=999x1 names no tuning (256x8, 256x16)");
  }
}

}  // namespace
}  // namespace rsw::sort::detail
