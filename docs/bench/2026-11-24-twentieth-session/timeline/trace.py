#!/usr/bin/env python3
"""Lays out one Onesweep sort from the trace patch's records: the histogram, the passes
kernel's start, each pass's span, and the block time lost at pass boundaries."""
import struct, sys, collections
data = open(sys.argv[1], 'rb').read()
recs = [struct.unpack_from('<QII', data, i) for i in range(0, len(data), 16)]
t0 = min(r[0] for r in recs)
us = lambda t: (t - t0) / 1000.0
by_kind = collections.defaultdict(list)
for t, what, tile in recs:
    by_kind[what & 0xff].append((t, what >> 8, tile))
def span(kind):
    ts = [t for t, _, _ in by_kind[kind]]
    return (us(min(ts)), us(max(ts))) if ts else (None, None)
print(f"records {len(recs)}")
print("histogram blocks start %.1f-%.1f us, end %.1f-%.1f us" % (*span(8), *span(9)))
print("passes kernel blocks start %.1f-%.1f, past wait %.1f-%.1f, end %.1f-%.1f" % (*span(0), *span(1), *span(6)))
blocks = sorted(set(b for _, b, _ in by_kind[2]))
nb = len(blocks)
# per block timeline of tiles: taken (2), lookback done (3), scatter done (5)
taken = collections.defaultdict(list)
for t, b, tile in by_kind[2]:
    taken[b].append((t, tile >> 24, tile & 0xffffff))
done = {}
for t, b, tile in by_kind[5]:
    done.setdefault(b, []).append((t, tile))
look = {}
for t, b, tile in by_kind[3]:
    look.setdefault(b, []).append((t, tile))
waits = collections.defaultdict(dict)
for t, b, tile in by_kind[4]:
    waits[b][tile >> 24] = t
orders = sorted(set(o for v in taken.values() for _, o, _ in v if o < 8))
passes = [o for o in orders if any(o == oo for v in taken.values() for _, oo, tile in v)]
end_kernel = max(t for t, _, _ in by_kind[6])
start_kernel = min(t for t, _, _ in by_kind[1])
print(f"blocks {nb}; kernel past wait -> last end {(end_kernel-start_kernel)/1000:.1f} us")
# per pass: first tile taken, last scatter done
for o in passes:
    tk = [t for v in taken.values() for t, oo, _ in v if oo == o]
    tiles = sorted(set(tile for v in taken.values() for _, oo, tile in v if oo == o))
    # last scatter of this pass: by blocks' done records matched to taken order
    print(f"pass order {o}: tiles {len(tiles)} first taken {us(min(tk)):.1f} last taken {us(max(tk)):.1f}")
# per block: idle between the end of its last tile of pass o and its wait end in o+1
tile_times = []
idle = collections.defaultdict(float)
lookwait = []
for b in blocks:
    seq = sorted(taken[b])
    ends = sorted(done.get(b, []))
    lks = sorted(look.get(b, []))
    # pair taken (non-final) with ends in order
    work = [x for x in seq if x[1] in passes and x[1] < 8]
    work = [x for x in work if x[1] < len(passes)]
    for i, (t, o, tile) in enumerate(work[:len(ends)]):
        tile_times.append((ends[i][0] - t) / 1000)
        if i < len(lks): lookwait.append((lks[i][0] - t) / 1000)
    for i in range(1, len(work)):
        if work[i][1] != work[i-1][1] and i - 1 < len(ends):
            o = work[i][1]
            w = waits[b].get(o, work[i][0])
            idle[o] += (w - ends[i-1][0]) / 1000
    # last tile end -> kernel end (its exit)
    if ends:
        idle['end'] += (max(t for t, bb, _ in by_kind[6] if bb == b) - ends[-1][0]) / 1000
tile_times.sort(); lookwait.sort()
med = lambda v: v[len(v)//2] if v else 0
print(f"tile time (taken -> scatter done) median {med(tile_times):.2f} us, p10 {tile_times[len(tile_times)//10]:.2f} p90 {tile_times[9*len(tile_times)//10]:.2f}")
print(f"taken -> look-back done median {med(lookwait):.2f} us")
total = nb * (end_kernel - start_kernel) / 1000
for k, v in idle.items():
    print(f"idle block-us at boundary into {k}: {v:.0f} = {v/nb:.2f} us a block = {100*v/total:.1f}% of block time")
# phases of each tile, per block in time order
per_block = collections.defaultdict(list)
for t, what, tile in recs:
    per_block[what >> 8].append((t, what & 0xff, tile))
names = {2: 'taken', 4: 'pass wait', 10: 'loaded+counted', 11: 'published+placed', 12: 'ranked',
         3: 'looked back', 13: 'copies in', 5: 'scattered'}
steps = collections.defaultdict(list)
for b, rs in per_block.items():
    rs.sort()
    prev = None
    for t, k, tile in rs:
        if k in (0, 1, 6, 8, 9):
            prev = None
            continue
        if k == 14:
            continue
        if prev is not None and k != 2:
            steps[(prev[1], k)].append((t - prev[0]) / 1000)
        prev = (t, k)
print("phase (from -> to): median / mean us, count")
for (a, b), v in sorted(steps.items(), key=lambda x: -len(x[1])):
    if len(v) < 50: continue
    v.sort()
    print(f"  {names.get(a,a):>17} -> {names.get(b,b):<17} {v[len(v)//2]:6.2f} / {sum(v)/len(v):6.2f}  {len(v)}")
walks = [tile for _, _, tile in by_kind[14]]
if walks:
    dist = sorted(w & 0xfff for w in walks); rounds = sorted((w >> 12) & 0x3ff for w in walks); rest = sorted((w >> 22) & 0x3ff for w in walks)
    q = lambda v, f: v[int(f * (len(v) - 1))]
    print(f"walk (digit 0): distance median {q(dist,.5)} p10 {q(dist,.1)} p90 {q(dist,.9)} max {dist[-1]}; rounds median {q(rounds,.5)} p90 {q(rounds,.9)}; restarts median {q(rest,.5)} p90 {q(rest,.9)} max {rest[-1]}")
