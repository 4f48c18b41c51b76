/* The C ABI's contract, checked from C: run under LD_PRELOAD=libshardsweep.so. Alignment of
 * every entry point, zeroed calloc, realloc keeping contents, malloc_usable_size covering the
 * request, large and over-aligned requests, and frees from other threads. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "FAILED line %d: %s\n", __LINE__, #c); failures++; } } while (0)

#define N 20000
static void *slots[N];

static void *freer(void *arg) {
  (void)arg;
  for (int i = 0; i < N; i++) free(slots[i]);
  return NULL;
}

int main(void) {
  /* sizes across small classes and into large mappings */
  for (size_t s = 0; s < 300000; s = s * 3 / 2 + 1) {
    unsigned char *p = malloc(s);
    CHECK(p != NULL);
    CHECK(malloc_usable_size(p) >= s);
    if (s >= 16) CHECK(((uintptr_t)p & 15) == 0);
    memset(p, 0xab, s);
    unsigned char *q = realloc(p, s * 2 + 7);
    CHECK(q != NULL);
    for (size_t i = 0; i < s; i++) if (q[i] != 0xab) { CHECK(!"realloc kept contents"); break; }
    q = realloc(q, s / 3 + 1);
    for (size_t i = 0; i < s / 3 + 1 && i < s; i++) if (q[i] != 0xab) { CHECK(!"shrink kept contents"); break; }
    free(q);
    unsigned char *z = calloc(s + 1, 3);
    for (size_t i = 0; i < (s + 1) * 3; i++) if (z[i]) { CHECK(!"calloc zeroed"); break; }
    free(z);
  }
  CHECK(calloc(SIZE_MAX / 2, 4) == NULL);
  for (size_t a = 8; a <= (1 << 20); a *= 2) {
    for (size_t s = 1; s < 200000; s = s * 5 + 3) {
      void *p = NULL;
      CHECK(posix_memalign(&p, a, s) == 0);
      CHECK(((uintptr_t)p & (a - 1)) == 0);
      memset(p, 1, s);
      free(p);
      void *q = aligned_alloc(a, s);
      CHECK(q && ((uintptr_t)q & (a - 1)) == 0);
      memset(q, 2, s);
      free(q);
      void *m = memalign(a, s);
      CHECK(m && ((uintptr_t)m & (a - 1)) == 0);
      free(m);
    }
  }
  /* extreme requests: null (or ENOMEM), never a crash */
  CHECK(malloc(SIZE_MAX) == NULL);
  CHECK(malloc(PTRDIFF_MAX) == NULL);
  CHECK(malloc((size_t)1 << 62) == NULL);
  CHECK(aligned_alloc((size_t)1 << 62, 64) == NULL);
  void *huge = NULL;
  CHECK(posix_memalign(&huge, (size_t)1 << 62, 8) == ENOMEM);
  void *far = aligned_alloc((size_t)1 << 30, 100); /* larger than a block: a mapping of its own */
  CHECK(far && ((uintptr_t)far & (((size_t)1 << 30) - 1)) == 0);
  if (far) { memset(far, 3, 100); free(far); }
  void *keep = malloc(1000);
  CHECK(keep && realloc(keep, SIZE_MAX) == NULL);
  memset(keep, 4, 1000); /* still ours after the failed realloc */
  free(keep);
  /* a large allocation freed dirty and reused (the large-mapping cache): calloc still zeroes */
  for (int r = 0; r < 4; r++) {
    unsigned char *d = malloc(100000);
    memset(d, 0xff, 100000);
    free(d);
    unsigned char *c = calloc(1, 100000);
    for (size_t i = 0; i < 100000; i++) if (c[i]) { CHECK(!"calloc of a reused large allocation zeroed"); break; }
    free(c);
  }
  void *bad;
  CHECK(posix_memalign(&bad, 3, 8) != 0);
  CHECK(((uintptr_t)valloc(10) & 4095) == 0);
  free(NULL);
  CHECK(malloc_usable_size(NULL) == 0);
  /* cross-thread frees */
  for (int round = 0; round < 5; round++) {
    for (int i = 0; i < N; i++) { slots[i] = malloc(8 + (i % 700)); memset(slots[i], i, 8); }
    pthread_t t;
    pthread_create(&t, NULL, freer, NULL);
    pthread_join(t, NULL);
  }
  /* the allocator really is this library: usable sizes are its size classes */
  void *p = malloc(1);
  printf("malloc_usable_size(malloc(1)) = %zu\n", malloc_usable_size(p));
  free(p);
  if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
  printf("abi: all checks passed\n");
  return 0;
}
