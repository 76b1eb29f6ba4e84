/*
 * The exercise's OpenMP baseline, written from its description, to time nqueen against.
 *
 * Default (load-balanced): expand the first rows by iterative deepening (depth 1, 2, ...
 * until a depth yields at least 16,384 partial boards), then count them with
 * `#pragma omp parallel for schedule(static, 1024) reduction(+:sum)` over a plain
 * recursive bitmask DFS that ANDs each row's valid mask.
 * With -DNAIVE: one task per first-row column, schedule(dynamic, 1).
 *
 * Same input and output as nqueen. Build: cc -O2 -fopenmp nqueen_omp.c -o nqueen_omp
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_PREFIXES 16384

typedef struct { unsigned cols, ld, rd; } prefix_t;

static int n;
static unsigned valid[32];
static unsigned full;

static long long dfs(int row, unsigned cols, unsigned ld, unsigned rd) {
    if (row == n) return 1;
    long long sum = 0;
    unsigned avail = valid[row] & ~(cols | ld | rd) & full;
    while (avail) {
        unsigned bit = avail & -avail;
        avail ^= bit;
        sum += dfs(row + 1, cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
    }
    return sum;
}

/* Appends every partial board `depth` rows deep below (row, cols, ld, rd). */
static void collect(int row, int depth, unsigned cols, unsigned ld, unsigned rd,
                    prefix_t **out, size_t *len, size_t *cap) {
    if (row == depth) {
        if (*len == *cap) {
            *cap = *cap ? *cap * 2 : 1024;
            *out = realloc(*out, *cap * sizeof **out);
            if (!*out) { perror("realloc"); exit(1); }
        }
        (*out)[(*len)++] = (prefix_t){cols, ld, rd};
        return;
    }
    unsigned avail = valid[row] & ~(cols | ld | rd) & full;
    while (avail) {
        unsigned bit = avail & -avail;
        avail ^= bit;
        collect(row + 1, depth, cols | bit, (ld | bit) << 1, (rd | bit) >> 1, out, len, cap);
    }
}

static long long solve(void) {
#ifdef NAIVE
    long long sum = 0;
    #pragma omp parallel for schedule(dynamic, 1) reduction(+:sum)
    for (int c = 0; c < n; c++) {
        unsigned bit = 1u << c;
        if (valid[0] & bit) sum += dfs(1, bit, bit << 1, bit >> 1);
    }
    return sum;
#else
    prefix_t *p = NULL;
    size_t len = 0, cap = 0;
    int depth = 0;
    do {
        depth++;
        len = 0;
        collect(0, depth, 0, 0, 0, &p, &len, &cap);
    } while (len < MIN_PREFIXES && depth < n);
    long long sum = 0;
    #pragma omp parallel for schedule(static, 1024) reduction(+:sum)
    for (long long i = 0; i < (long long)len; i++) sum += dfs(depth, p[i].cols, p[i].ld, p[i].rd);
    free(p);
    return sum;
#endif
}

int main(void) {
    char row[64];
    for (int kase = 1; scanf("%d", &n) == 1 && n > 0; kase++) {
        if (n > 32) { fprintf(stderr, "n out of range\n"); return 1; }
        full = n == 32 ? ~0u : (1u << n) - 1;
        for (int r = 0; r < n; r++) {
            if (scanf("%63s", row) != 1 || (int)strlen(row) != n) { fprintf(stderr, "bad row\n"); return 1; }
            valid[r] = 0;
            for (int c = 0; c < n; c++) if (row[c] == '.') valid[r] |= 1u << c;
        }
        printf("Case %d: %lld\n", kase, solve());
        fflush(stdout);
    }
    return 0;
}
