#include "developer_overrides.hpp"

#include <cstdlib>
#include <utility>

#include "rsw/engine/error.hpp"

namespace rsw::sort::detail {
namespace {

std::optional<std::string> read(const char* variable) {
  const char* value = std::getenv(variable);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// The value of `variable` among `choices` ({name, value}), or nothing when it is not set.
template <class T, std::size_t kCount>
std::optional<T> read_choice(const char* variable,
                             const std::pair<const char*, T> (&choices)[kCount]) {
  const std::optional<std::string> value = read(variable);
  if (!value) return std::nullopt;
  std::string known;
  for (const auto& [name, choice] : choices) {
    if (*value == name) return choice;
    known += (known.empty() ? "" : ", ") + std::string(name);
  }
  throw Error(ErrorKind::InvalidArgument,
              std::string(variable) + "=" + *value + ": not one of " + known);
}

}  // namespace

DeveloperOverrides DeveloperOverrides::from_environment() {
  static constexpr std::pair<const char*, LaunchMode> kLaunches[] = {
      {"graph", LaunchMode::Graph}, {"stream", LaunchMode::Stream}};
  static constexpr std::pair<const char*, PairLayout> kLayouts[] = {
      {"arrays", PairLayout::Arrays}, {"records", PairLayout::Records}};
  static constexpr std::pair<const char*, HistogramKind> kHistograms[] = {
      {"digit", HistogramKind::ByDigit}, {"lane", HistogramKind::ByLane}};
  return {.launch = read_choice("RSW_SORT_LAUNCH", kLaunches).value_or(LaunchMode::Graph),
          .onesweep_tuning = read("RSW_ONESWEEP_TUNING"),
          .onesweep_layout = read_choice("RSW_ONESWEEP_LAYOUT", kLayouts),
          .onesweep_histogram = read_choice("RSW_ONESWEEP_HISTOGRAM", kHistograms),
          .four_way_tuning = read("RSW_FOUR_WAY_TUNING")};
}

std::optional<std::size_t> tuning_named(const std::optional<std::string>& name,
                                        std::span<const std::string> names, const char* variable) {
  if (!name) return std::nullopt;
  std::string known;
  for (std::size_t index = 0; index < names.size(); ++index) {
    if (names[index] == *name) return index;
    known += (known.empty() ? "" : ", ") + names[index];
  }
  throw Error(ErrorKind::InvalidArgument,
              std::string(variable) + "=" + *name + " names no tuning (" + known + ")");
}

}  // namespace rsw::sort::detail
