// Small text helpers shared by the parsers of names (backends, algorithms, distributions).
#pragma once

#include <string>
#include <string_view>

#include "rsw/engine/api.hpp"

namespace rsw {

/// `text` with ASCII letters in lower case: names on the command line match in any case.
RSW_API std::string ascii_lowercase(std::string_view text);

}  // namespace rsw
