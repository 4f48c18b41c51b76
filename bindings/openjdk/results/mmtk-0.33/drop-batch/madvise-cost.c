// The cost of a madvise(MADV_DONTNEED) call against process_madvise over many ranges, with a
// second thread of the process spinning (as a second GC worker runs during a GC): 20,000
// two-page ranges, three runs each. Build and run: gcc -O2 -pthread madvise-cost.c -o /tmp/mc && /tmp/mc

#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <pthread.h>
#include <time.h>
#include <errno.h>
#include <string.h>
static volatile int stop;
static void *spin(void *a){ while(!stop); return 0; }
static double now(){ struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+t.tv_nsec*1e-9; }
int main(int argc,char**argv){
  int N=20000; size_t P=4096; int runs=8; // 8-page regions, 2 pages dropped each
  char *m=mmap(0,(size_t)N*8*P,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  pthread_t th; pthread_create(&th,0,spin,0);
  int pidfd=syscall(SYS_pidfd_open,getpid(),0);
  struct iovec *iov=malloc(sizeof(struct iovec)*N);
  for(int mode=0;mode<2;mode++) for(int r=0;r<3;r++){
    memset(m,1,(size_t)N*8*P);
    double t0=now();
    if(mode==0){ for(int i=0;i<N;i++) madvise(m+(size_t)i*8*P+2*P,2*P,MADV_DONTNEED); }
    else { for(int i=0;i<N;i++){iov[i].iov_base=m+(size_t)i*8*P+2*P; iov[i].iov_len=2*P;}
      for(int i=0;i<N;i+=1024){ int n=N-i<1024?N-i:1024; long rc=syscall(SYS_process_madvise,pidfd,iov+i,n,MADV_DONTNEED,0); if(rc<0){printf("err %s\n",strerror(errno));return 1;} } }
    double t1=now();
    printf("%s: %.1f us/range (check %d)\n", mode?"process_madvise":"madvise", (t1-t0)/N*1e6, m[2*P]);
  }
  stop=1; pthread_join(th,0); return 0; }
