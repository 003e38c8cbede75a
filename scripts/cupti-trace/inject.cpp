// A CUPTI activity trace for any CUDA program, loaded by the driver through
// CUDA_INJECTION64_PATH: every kernel, copy and memset on the GPU and every runtime API call on
// the host, one line each ("K|C|S|R start_ns end_ns name"), written to $TRACE_OUT at exit. The
// GPU and host records share one clock, so gaps between kernels can be laid beside the host
// calls that caused them (timeline.py). Not part of the build; see README.md.
#include <cupti.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

std::FILE* trace = nullptr;

void CUPTIAPI give_buffer(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *size = std::size_t{16} << 20;
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;  // as many as fit
}

void write(char kind, unsigned long long start, unsigned long long end, const char* name) {
  std::fprintf(trace, "%c %llu %llu %s\n", kind, start, end, name);
}

void CUPTIAPI take_buffer(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                          std::size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        write('K', kernel->start, kernel->end, kernel->name);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* copy = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        char name[64];
        std::snprintf(name, sizeof name, "copy%u_%llu", static_cast<unsigned>(copy->copyKind),
                      static_cast<unsigned long long>(copy->bytes));
        write('C', copy->start, copy->end, name);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* memset = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        write('S', memset->start, memset->end, "memset");
        break;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME: {
        const auto* call = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        const char* name = "?";
        cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, call->cbid, &name);
        write('R', call->start, call->end, name);
        break;
      }
      default:
        break;
    }
  }
  std::free(buffer);
}

void finish() {
  cuptiActivityFlushAll(1);
  std::fclose(trace);
}

}  // namespace

extern "C" int InitializeInjection() {
  const char* path = std::getenv("TRACE_OUT");
  trace = std::fopen(path != nullptr ? path : "cupti-trace.txt", "w");
  if (trace == nullptr) return 0;
  cuptiActivityRegisterCallbacks(give_buffer, take_buffer);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
  std::atexit(finish);
  return 1;
}
