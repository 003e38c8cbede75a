// For tests of developer overrides: an environment variable set for a scope.
#pragma once

#include <cstdlib>

namespace rsw::test {

/// Sets `variable` to `value` while it lives, and unsets it after (the overrides' tests start
/// with none set).
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* variable, const char* value) : variable_(variable) {
    ::setenv(variable, value, 1);
  }
  ~ScopedEnvironment() { ::unsetenv(variable_); }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  const char* variable_;
};

/// The World's GPU backend's override: RSW_WORLD_MOVING_SWEEP=frame, under which a world made
/// meanwhile without statics sweeps its moving proxies in a BroadPhase frame however few they
/// are (as a world of more than a grid serves does), so that that path and the events after it
/// are tested at small sizes.
inline constexpr const char* kMovingSweep = "RSW_WORLD_MOVING_SWEEP";

}  // namespace rsw::test
