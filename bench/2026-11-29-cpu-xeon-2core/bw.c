// Streaming-write bandwidth of this VM: N threads writing a 16 MiB (or
// argv) buffer of u32 with plain or non-temporal stores, median of 41.
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static size_t N; static unsigned *buf; static int nt, threads;
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static void* work(void* a){ size_t id=(size_t)a, per=N/threads, s=id*per, e=s+per;
  if(nt){ __m256i v=_mm256_set1_epi32(7); for(size_t i=s;i<e;i+=8) _mm256_stream_si256((__m256i*)(buf+i),v); _mm_sfence(); }
  else { __m256i v=_mm256_set1_epi32(7); for(size_t i=s;i<e;i+=8) _mm256_store_si256((__m256i*)(buf+i),v); }
  return 0;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int c,char**v){ size_t mb=atoi(v[1]); threads=atoi(v[2]); nt=atoi(v[3]); N=mb*(1<<20)/4;
  buf=aligned_alloc(64,N*4); memset(buf,0,N*4); double t[41];
  for(int r=0;r<41;r++){ double a=now(); pthread_t th[8]; for(int k=0;k<threads;k++) pthread_create(&th[k],0,work,(void*)(size_t)k); for(int k=0;k<threads;k++) pthread_join(th[k],0); t[r]=now()-a; }
  qsort(t,41,sizeof(double),cmp); printf("%zu MiB threads %d nt %d: median %.3f ms = %.1f GB/s (min %.3f)\n",mb,threads,nt,t[20]*1e3,N*4/t[20]/1e9,t[0]*1e3); }
