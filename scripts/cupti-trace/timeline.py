#!/usr/bin/env python3
"""Reads inject.cpp's trace and prints, for the frames of a frame loop (each starting at a
kernel whose name contains FRAME_KERNEL), the frame period and GPU busy time, then one frame
in detail: each GPU operation's start, duration and the idle time before it, and the host's
runtime calls over the same span.

    timeline.py TRACE [FRAME_KERNEL] [FRAMES]      (defaults: summarize_boxes, 6)
"""
import re
import sys


def short_name(name):
    """A mangled kernel's last name (no namespaces, no template arguments); others as they are."""
    if not name.startswith("_ZN"):
        return name[:48]
    position, last = 3, name
    while position < len(name) and name[position].isdigit():  # <length><identifier>...
        digits = re.match(r"\d+", name[position:]).group(0)
        start = position + len(digits)
        last = name[start:start + int(digits)]
        position = start + int(digits)
    return last


def main():
    path = sys.argv[1]
    frame_kernel = sys.argv[2] if len(sys.argv) > 2 else "summarize_boxes"
    frames_shown = int(sys.argv[3]) if len(sys.argv) > 3 else 6
    gpu, host = [], []
    with open(path) as trace:
        for line in trace:
            kind, start, end, name = line.rstrip("\n").split(" ", 3)
            (gpu if kind in "KCS" else host).append((int(start), int(end), name))
    gpu.sort()
    host.sort()
    starts = [start for start, _, name in gpu if frame_kernel in name]
    if len(starts) < 3:
        sys.exit(f"fewer than 3 frames start with a kernel named like {frame_kernel!r}")
    for first, after in zip(starts[-frames_shown:-1], starts[-frames_shown + 1:]):
        ops = [op for op in gpu if first <= op[0] < after]
        busy = sum(end - start for start, end, _ in ops)
        print(f"frame: period {(after - first) / 1e3:.1f} us, GPU busy {busy / 1e3:.1f} us, "
              f"{len(ops)} operations")
    first, after = starts[-3], starts[-2]
    print("\nGPU, one frame (us): start, duration, idle before, operation")
    previous_end = None
    for start, end, name in gpu:
        if first <= start < after:
            idle = (start - previous_end) / 1e3 if previous_end else 0.0
            print(f"{(start - first) / 1e3:8.1f} {(end - start) / 1e3:7.1f} {idle:6.1f}  "
                  f"{short_name(name)}")
            previous_end = end
    print("\nhost runtime calls over the same span (us): start, duration, call")
    for start, end, name in host:
        if first - 50_000 <= start < after:
            print(f"{(start - first) / 1e3:8.1f} {(end - start) / 1e3:7.1f}  {name}")


if __name__ == "__main__":
    main()
