#include "rsw/engine/memory.hpp"

#include <unistd.h>
#include <fstream>
#include <string>

#include "device_memory_info.hpp"
#include "rsw/engine/backend.hpp"

namespace rsw {

Error host_allocation_error(std::string_view what, std::size_t bytes) {
  const std::string amount = bytes == SIZE_MAX ? "more than the address space holds"
                                               : describe_bytes(bytes) + " of host memory";
  return Error(ErrorKind::OutOfMemory,
               "allocating " + amount + " for " + std::string(what) + " failed");
}

Error host_out_of_memory(std::string_view doing) {
  return Error(ErrorKind::OutOfMemory, std::string(doing) + ": out of host memory");
}

MemoryUsage memory_usage() {
  MemoryUsage usage;
  // /proc/self/statm: program size, then resident pages.
  std::ifstream statm("/proc/self/statm");
  std::size_t program_pages = 0;
  std::size_t resident_pages = 0;
  if (statm >> program_pages >> resident_pages) {
    usage.host_resident_bytes = resident_pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  }
  const detail::DeviceMemoryInfo device = detail::current_device_memory();
  usage.device_total_bytes = device.total_bytes;
  usage.device_used_bytes = device.total_bytes - device.free_bytes;
  return usage;
}

}  // namespace rsw
