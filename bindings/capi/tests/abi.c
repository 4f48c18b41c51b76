/* The C allocation ABI of libshardsweep_capi.so, run under LD_PRELOAD by scripts/test-capi.sh:
 * alignment, zeroing, usable sizes, realloc contents, large and aligned requests, errno, and
 * frees from threads other than the allocating one. Exits non-zero on the first failure. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "abi.c:%d: CHECK failed: %s\n", __LINE__, #c); exit(1); } } while (0)

static int zeroed(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) if (p[i]) return 0;
    return 1;
}

#define N 20000
static void *handoff[N];

static void *producer(void *arg) {
    (void)arg;
    for (int i = 0; i < N; i++) {
        size_t n = 1 + (size_t)(i * 37) % 3000;
        unsigned char *p = malloc(n);
        CHECK(p && ((uintptr_t)p & 15) == 0);
        memset(p, (unsigned char)i, n);
        handoff[i] = p;
    }
    return NULL;
}

int main(void) {
    /* malloc: 16-aligned, usable >= asked, for every small size and some large ones */
    for (size_t n = 0; n < 20000; n += (n < 512 ? 1 : 97)) {
        unsigned char *p = malloc(n);
        CHECK(p != NULL);
        CHECK(((uintptr_t)p & 15) == 0);
        CHECK(malloc_usable_size(p) >= n);
        memset(p, 0xab, n);
        free(p);
    }
    void *big = malloc(10u << 20);
    CHECK(big && ((uintptr_t)big & 15) == 0 && malloc_usable_size(big) >= (10u << 20));
    memset(big, 1, 10u << 20);
    free(big);
    /* calloc zeroes, even a reused cell; overflow is ENOMEM */
    for (int r = 0; r < 3; r++) {
        unsigned char *d = malloc(200); memset(d, 0xff, 200); free(d);
        unsigned char *z = calloc(25, 8);
        CHECK(z && zeroed(z, 200));
        free(z);
    }
    unsigned char *zb = calloc(1, 1u << 20);
    CHECK(zb && zeroed(zb, 1u << 20));
    free(zb);
    volatile size_t huge = SIZE_MAX / 2;
    errno = 0;
    CHECK(calloc(huge, 4) == NULL && errno == ENOMEM);
    /* realloc keeps the contents, growing through small and large sizes and back */
    unsigned char *r = NULL;
    size_t have = 0;
    for (size_t n = 1; n <= (4u << 20); n = n * 3 / 2 + 1) {
        r = realloc(r, n);
        CHECK(r != NULL);
        for (size_t i = 0; i < have; i++) CHECK(r[i] == (unsigned char)(i * 7));
        for (size_t i = have; i < n; i++) r[i] = (unsigned char)(i * 7);
        have = n;
    }
    r = realloc(r, 100);
    for (size_t i = 0; i < 100; i++) CHECK(r[i] == (unsigned char)(i * 7));
    free(r);
    void *z0 = realloc(NULL, 0);
    free(z0);
    free(NULL);
    /* aligned requests */
    size_t aligns[] = {8, 16, 32, 64, 128, 256, 4096, 65536, 1u << 20};
    for (size_t a = 0; a < sizeof aligns / sizeof *aligns; a++) {
        for (size_t n = 1; n < 100000; n = n * 5 + 3) {
            void *p = NULL;
            CHECK(posix_memalign(&p, aligns[a], n) == 0);
            CHECK(((uintptr_t)p % aligns[a]) == 0 && malloc_usable_size(p) >= n);
            memset(p, 3, n);
            free(p);
            void *q = aligned_alloc(aligns[a], n);
            CHECK(q && ((uintptr_t)q % aligns[a]) == 0);
            free(q);
            void *m = memalign(aligns[a], n);
            CHECK(m && ((uintptr_t)m % aligns[a]) == 0);
            free(m);
        }
    }
    void *bad = NULL;
    CHECK(posix_memalign(&bad, 24, 10) == EINVAL);
    /* cross-thread frees: a producer thread allocates, main frees */
    pthread_t t;
    CHECK(pthread_create(&t, NULL, producer, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    for (int i = 0; i < N; i++) {
        unsigned char *p = handoff[i];
        CHECK(p[0] == (unsigned char)i);
        free(p);
    }
    /* the arena is ours: its 64 GiB reservation is in the maps */
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512];
    int arena = 0;
    while (fgets(line, sizeof line, maps)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && hi - lo >= (32ul << 30)) arena = 1;
    }
    fclose(maps);
    printf("abi: %s\n", arena ? "PASSED (shardsweep arena mapped)" : "no arena: the allocator was not preloaded");
    return arena ? 0 : 2;
}
