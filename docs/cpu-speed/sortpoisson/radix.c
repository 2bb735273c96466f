#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  int BITS = argc>1?atoi(argv[1]):8;
  size_t n=1<<24; uint32_t*a=malloc(n*4),*b=malloc(n*4),*src=malloc(n*4);
  uint64_t s=88172645463325252ull; for(size_t i=0;i<n;i++){s^=s<<13;s^=s>>7;s^=s<<17;src[i]=(uint32_t)s;}
  if(getenv("HUGE")){posix_memalign((void**)&a,1<<21,n*4);posix_memalign((void**)&b,1<<21,n*4);madvise(a,n*4,MADV_HUGEPAGE);madvise(b,n*4,MADV_HUGEPAGE);}
  memset(b,0,n*4);
  int B=1<<BITS; uint32_t*cnt=malloc(B*4);
  for(int rep=0;rep<5;rep++){
  memcpy(a,src,n*4);
  double t0=now(), tc=0, tsc=0;
  uint32_t*x=a,*y=b;
  for(int sh=0;sh<32;sh+=BITS){
    double t1=now();
    memset(cnt,0,B*4);
    for(size_t i=0;i<n;i++) cnt[(x[i]>>sh)&(B-1)]++;
    uint32_t acc=0; for(int d=0;d<B;d++){uint32_t c=cnt[d];cnt[d]=acc;acc+=c;}
    double t2=now();
    for(size_t i=0;i<n;i++){uint32_t k=x[i];y[cnt[(k>>sh)&(B-1)]++]=k;}
    double t3=now(); tc+=t2-t1; tsc+=t3-t2;
    uint32_t*t=x;x=y;y=t;
  }
  printf("bits %d total %.1f ms count %.1f scatter %.1f\n",BITS,(now()-t0)*1e3,tc*1e3,tsc*1e3);
  }
  return a[0]>a[1];
}
