// RSW_API marks what RadixSweep's libraries export. They are compiled with hidden visibility,
// so a shared build (BUILD_SHARED_LIBS) exports exactly the declarations marked here: the
// public API, and the few detail:: functions that the other RadixSweep libraries and the
// header templates call. Header-only code needs no mark.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define RSW_API __attribute__((visibility("default")))
#else
#define RSW_API
#endif
