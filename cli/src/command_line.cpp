#include "rsw/cli/command_line.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <new>
#include <sstream>

#include "rsw/engine/error.hpp"

namespace rsw::cli {
namespace {

// Messages go on one line, whatever their source put in them.
std::string one_line(std::string message) {
  for (char& character : message) {
    if (character == '\n' || character == '\r') character = ' ';
  }
  while (!message.empty() && message.back() == ' ')
    message.pop_back();
  return message;
}

int report(const CLI::App& app, const std::string& message, int status) {
  std::cerr << app.get_name() << ": " << one_line(message) << '\n';
  return status;
}

std::string describe_number(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

}  // namespace

std::size_t parse_size(std::string_view text) {
  const auto fail = [&](const std::string& why) {
    return Error(ErrorKind::InvalidArgument, "'" + std::string(text) + "' is not a size (" + why +
                                                 "; examples: 4096, 64K, 256M, 1G)");
  };
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (end == text.data()) throw fail("it does not start with digits");
  if (error == std::errc::result_out_of_range) throw fail("it is past 2^64");
  const std::string_view suffix = text.substr(static_cast<std::size_t>(end - text.data()));
  int shift = -1;
  if (suffix.empty()) shift = 0;
  if (suffix == "K" || suffix == "k") shift = 10;
  if (suffix == "M" || suffix == "m") shift = 20;
  if (suffix == "G" || suffix == "g") shift = 30;
  if (shift < 0) throw fail("the suffix is not K, M or G");
  if (value > (std::numeric_limits<std::size_t>::max() >> shift)) throw fail("it is past 2^64");
  return value << shift;
}

CLI::Validator finite_range(double min, double max) {
  const std::string range = "[" + describe_number(min) + ", " + describe_number(max) + "]";
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const char* begin = text.c_str();
        char* end = nullptr;
        const double value = std::strtod(begin, &end);
        if (end == begin || *end != '\0') return "'" + text + "' is not a number";
        if (!std::isfinite(value) || value < min || value > max) {
          return "'" + text + "' is not a finite number in " + range;
        }
        return {};
      },
      "FLOAT in " + range);
}

void check_writable(const std::string& path, std::string_view flag) {
  std::error_code error;
  const bool existed = std::filesystem::exists(path, error);
  errno = 0;
  std::ofstream file(path, std::ios::app);
  if (!file) {
    const std::string why = errno != 0 ? std::strerror(errno) : "it cannot be opened";
    throw Error(ErrorKind::InvalidArgument,
                std::string(flag) + " '" + path + "': cannot write there (" + why + ")");
  }
  file.close();
  if (!existed) std::filesystem::remove(path, error);
}

int run_program(CLI::App& app, int argc, char** argv, const std::function<int()>& run) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& request) {
    return app.exit(request);
  } catch (const CLI::CallForAllHelp& request) {
    return app.exit(request);
  } catch (const CLI::CallForVersion& request) {
    return app.exit(request);
  } catch (const CLI::ParseError& error) {
    return report(app, std::string(error.what()) + " (see --help)", kBadArguments);
  }
  try {
    return run();
  } catch (const Error& error) {
    return report(app, error.what(),
                  error.kind() == ErrorKind::InvalidArgument ? kBadArguments : kFailure);
  } catch (const std::bad_alloc&) {
    return report(app, "out of host memory (an allocation failed)", kFailure);
  } catch (const std::exception& error) {
    return report(app, std::string("unexpected error: ") + error.what(), kFailure);
  }
}

}  // namespace rsw::cli
