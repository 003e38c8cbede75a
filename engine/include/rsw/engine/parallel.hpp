// Fork-join on std::jthreads for the CPU paths of the libraries. An exception thrown on any
// thread reaches the caller once every thread has finished (the first one thrown; later ones
// are dropped), so a worker's failure is the caller's rsw::Error, never std::terminate.
//
//   rsw::run_on_threads(4, [&](int thread) { ... });                     // thread = 0..3
//   rsw::for_each_part(n, 16 * 1024, [&](std::size_t first, std::size_t last) { ... });
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

namespace rsw {
namespace detail {

/// Keeps the first exception that any of several threads reports.
class FirstException {
 public:
  /// Runs `work`, keeping what it throws if nothing was kept before.
  template <class Work>
  void run(Work&& work) noexcept {
    try {
      work();
    } catch (...) {
      const std::lock_guard lock(mutex_);
      if (!exception_) exception_ = std::current_exception();
    }
  }
  /// Throws the kept exception, if any.
  void rethrow() const {
    if (exception_) std::rethrow_exception(exception_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr exception_;
};

}  // namespace detail

/// Calls task(index) for each index in [0, threads) on its own thread, the calling thread
/// taking index 0, and returns when all are done. When the system refuses a thread, the
/// calling thread runs the tasks that did not start. Rethrows the first exception a task threw.
template <class Task>
void run_on_threads(int threads, const Task& task) {
  detail::FirstException first;
  int started = 1;
  {
    std::vector<std::jthread> workers;
    try {
      workers.reserve(static_cast<std::size_t>(std::max(threads - 1, 0)));
      for (; started < threads; ++started)
        workers.emplace_back([&first, &task, index = started] { first.run([&] { task(index); }); });
    } catch (const std::system_error&) {  // no more threads: the rest run here, in turn
    } catch (const std::bad_alloc&) {
    }
    first.run([&] { task(0); });
    for (int index = started; index < threads; ++index)
      first.run([&] { task(index); });
  }  // the workers join here
  first.rethrow();
}

/// Calls part(first, last) over [0, items) on up to `threads` threads (0: one per hardware
/// thread), each range at least `grain` items long; the calling thread takes the first part.
/// Each part does what a single thread would do for its range, so results never depend on the
/// count of threads when parts write disjoint outputs. Rethrows the first exception a part threw.
template <class Part>
void for_each_part(std::size_t items, std::size_t grain, const Part& part, int threads = 0) {
  const std::size_t hardware = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t wanted = threads > 0 ? static_cast<std::size_t>(threads) : hardware;
  const std::size_t most = std::max<std::size_t>(items / std::max<std::size_t>(grain, 1), 1);
  const std::size_t parts = std::clamp<std::size_t>(wanted, 1, most);
  if (parts == 1) return part(std::size_t{0}, items);
  run_on_threads(static_cast<int>(parts), [&](int index) {
    const auto k = static_cast<std::size_t>(index);
    part(items * k / parts, items * (k + 1) / parts);
  });
}

}  // namespace rsw
