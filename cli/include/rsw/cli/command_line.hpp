// The command-line conventions of RadixSweep's programs:
// - every number has a range, and a value outside it (negative counts, NaN, sizes that
//   overflow) is refused before anything runs;
// - every output file is checked for writing before the first frame, not after the last;
// - every failure is one line on stderr, "<program>: <what went wrong>", and an exit status:
//   2 for bad arguments or input (flags, values, files), 1 for anything else (out of memory,
//   no GPU, a failing device). Nothing aborts.
//
//   CLI::App app("...", "radixsweep-bench");
//   app.add_option("--motion", motion)->check(rsw::cli::finite_range(0, 1e6));
//   return rsw::cli::run_program(app, argc, argv, [&] { ...; return 0; });
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace rsw::cli {

/// Exit status for bad flags, values or input files.
constexpr int kBadArguments = 2;
/// Exit status for any other failure.
constexpr int kFailure = 1;

/// Parses a size: "4096", "64K", "256M", "1G" (binary multiples). Throws
/// rsw::Error(InvalidArgument) for anything else, a value past what size_t holds included.
std::size_t parse_size(std::string_view text);

/// A CLI11 check: a number in [min, max]. NaN and infinities fail it (CLI::Range lets NaN by).
CLI::Validator finite_range(double min, double max);

/// Throws rsw::Error(InvalidArgument) unless `path` can be written: opens it to append,
/// creating it and removing it again when it was not there. `flag` names the option in the
/// message ("--stats").
void check_writable(const std::string& path, std::string_view flag);

/// Parses the command line and calls `run`, whose return value becomes the exit status. Help
/// and version requests print and give 0. Any failure, from parsing or from `run` (rsw::Error,
/// std::bad_alloc, any other exception), prints one line, "<app name>: <message>", on stderr
/// and gives kBadArguments or kFailure.
int run_program(CLI::App& app, int argc, char** argv, const std::function<int()>& run);

}  // namespace rsw::cli
