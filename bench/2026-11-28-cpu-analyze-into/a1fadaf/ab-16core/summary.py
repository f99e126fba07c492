import sys, statistics
from collections import defaultdict
med=defaultdict(list)
for line in open(sys.argv[1]):
    p=line.split()
    v,mode,side,c,g=p[0],p[1],p[2],p[3],p[4]
    d=p[6].split('=')[1]; m=float(p[9])
    med[(mode,side,c,g,d,v)].append(m)
keys=sorted(set(k[:5] for k in med))
rs=[]
for k in keys:
    b=med[k+('base',)]; j=med[k+('join',)]
    r=statistics.median(j)/statistics.median(b); rs.append(r)
    print(' '.join(k), f"base min {min(b):.2f} med {statistics.median(b):.2f} | join min {min(j):.2f} med {statistics.median(j):.2f} | med ratio {r:.2f}")
print("geomean ratio", statistics.geometric_mean(rs))
