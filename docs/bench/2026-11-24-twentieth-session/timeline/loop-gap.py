import struct, sys, collections
data=open(sys.argv[1],'rb').read()
recs=[struct.unpack_from('<QII',data,i) for i in range(0,len(data),16)]
pb=collections.defaultdict(list)
for t,w,tile in recs: pb[w>>8].append((t,w&0xff,tile))
gaps=[]
for b,rs in pb.items():
    rs.sort()
    for (t1,k1,_),(t2,k2,tile2) in zip(rs,rs[1:]):
        if k1==5 and k2==2: gaps.append((t2-t1)/1000)
gaps.sort()
print(len(gaps), 'median %.2f mean %.2f p90 %.2f'%(gaps[len(gaps)//2], sum(gaps)/len(gaps), gaps[9*len(gaps)//10]))
