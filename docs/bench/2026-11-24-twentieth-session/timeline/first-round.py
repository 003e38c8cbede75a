import struct, sys, collections
data=open(sys.argv[1],'rb').read()
recs=[struct.unpack_from('<QII',data,i) for i in range(0,len(data),16)]
pb=collections.defaultdict(list)
for t,w,tile in recs: pb[w>>8].append((t,w&0xff,tile))
rows=[]  # (order, tile, lookback_us, distance, rounds, tiletime)
for b,rs in pb.items():
    rs.sort()
    cur=None
    for t,k,tile in rs:
        if k==2: cur={'order':tile>>24,'tile':tile&0xffffff,'taken':t}
        elif cur is None: continue
        elif k==12: cur['ranked']=t
        elif k==14: cur['walk']=tile
        elif k==3: cur['looked']=t
        elif k==5:
            cur['done']=t
            if 'ranked' in cur and 'looked' in cur and 'walk' in cur:
                w=cur['walk']
                rows.append((cur['order'],cur['tile'],(cur['looked']-cur['ranked'])/1000,w&0xfff,(w>>12)&0x3ff,(cur['done']-cur['taken'])/1000))
            cur=None
def summ(sel,name):
    v=[r for r in rows if sel(r)]
    if not v: return
    med=lambda i: sorted(x[i] for x in v)[len(v)//2]
    mean=lambda i: sum(x[i] for x in v)/len(v)
    print(f"{name:28} n={len(v):5} lookback med {med(2):5.2f} mean {mean(2):5.2f} us, distance med {med(3)} mean {mean(3):.1f}, rounds med {med(4)}, tile time med {med(5):.2f} mean {mean(5):.2f}; total lookback {sum(x[2] for x in v):.0f} us")
summ(lambda r: r[1] < 264, "first round (tile < 264)")
summ(lambda r: 264 <= r[1] < 528, "second round")
summ(lambda r: r[1] >= 528, "later")
