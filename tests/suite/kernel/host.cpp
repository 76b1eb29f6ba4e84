// Runs kernels/count.cu on the CPU, one emulated thread at a time, so that the kernel's
// search can be checked where there is no GPU (tests/suite/kernel_on_cpu.rs builds and drives it).
// Reads from stdin: n depth boards, each board's n row windows as the kernel reads them
// (free, due, the next two rows' free: see row_windows in src/gpu/launch.rs), the weights,
// the entry point (0 count_prefixes, 1 count_prefixes_due, 2 count_prefixes_uniform), the rows
// to expand the roots by, whether to print the expanded prefixes (0 or 1), the root count,
// then each root as board cols ld rd and how many prefixes it expands to. Expands the roots
// with expand_prefixes, counts the result, and prints the weighted solutions, the nodes
// and the mismatches, then the prefixes as board cols ld rd if asked.
#include <cstdio>
#include <vector>

#define __device__
#define __forceinline__ inline
#define __global__
#define __restrict__
#define __shared__
#define __launch_bounds__(threads)

struct uint4 { unsigned int x, y, z, w; };
static uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) { return {x, y, z, w}; }
static unsigned int __popc(unsigned int v) { return __builtin_popcount(v); }
static unsigned int atomicAdd(unsigned int* p, unsigned int v) { unsigned int old = *p; *p += v; return old; }
static unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) { unsigned long long old = *p; *p += v; return old; }
// One emulated lane: the other lanes' shares are zero.
static unsigned long long __shfl_down_sync(unsigned int, unsigned long long, int) { return 0; }

// Each emulated thread runs to the end before the next starts; several threads per block
// make the kernel lay its stack out with a stride, as on the GPU.
static struct { unsigned int x; } threadIdx, blockIdx, blockDim = {3};
uint4 stack[3 * 64];

// The kernel's PTX helpers. Stack addresses are byte offsets into `stack`, as into the
// shared window.
#define NQUEEN_HOST
static int in_register(int v) { return v; }
static unsigned int stack_address(const uint4* p) { return static_cast<unsigned int>((p - stack) * sizeof(uint4)); }
static uint4 stack_load(unsigned int a) { return stack[a / sizeof(uint4)]; }
static void stack_store(unsigned int a, uint4 s) { stack[a / sizeof(uint4)] = s; }
static uint4 row_load(const uint4* p) { return *p; }

#include "../../../kernels/count.cu"

int main() {
    int n, depth, boards;
    if (std::scanf("%d %d %d", &n, &depth, &boards) != 3) return 2;
    std::vector<uint4> windows(static_cast<size_t>(boards) * n);
    for (auto& w : windows) if (std::scanf("%u %u %u %u", &w.x, &w.y, &w.z, &w.w) != 4) return 2;
    std::vector<unsigned long long> weights(boards);
    for (auto& w : weights) if (std::scanf("%llu", &w) != 1) return 2;
    unsigned int entry, extra, print, roots;
    if (std::scanf("%u %u %u %u", &entry, &extra, &print, &roots) != 4 || entry > 2) return 2;
    std::vector<Prefix> base(roots);
    std::vector<unsigned int> offsets(roots + 1, 0);
    for (unsigned int i = 0; i < roots; ++i) {
        Prefix& p = base[i];
        if (std::scanf("%u %u %u %u %u", &p.board, &p.cols, &p.ld, &p.rd, &offsets[i + 1]) != 5) return 2;
        offsets[i + 1] += offsets[i];
    }
    const unsigned int count = offsets[roots];
    std::vector<Prefix> prefixes(count);
    unsigned int mismatches = 0;
    for (unsigned int i = 0; i < roots; ++i) {
        blockIdx.x = i / blockDim.x;
        threadIdx.x = i % blockDim.x;
        expand_prefixes(base.data(), roots, offsets.data(), windows.data(), n, depth, static_cast<int>(extra), prefixes.data(), &mismatches);
    }
    unsigned int next = 0;
    unsigned long long totals[3] = {0, 0, 0};
    for (threadIdx.x = 0; threadIdx.x < blockDim.x; ++threadIdx.x) {
        const auto kernel = entry == 0 ? count_prefixes : entry == 1 ? count_prefixes_due : count_prefixes_uniform;
        kernel(prefixes.data(), count, windows.data(), weights.data(), n, depth + static_cast<int>(extra), &next, totals,
               blockDim.x * static_cast<unsigned int>(sizeof(uint4)));
    }
    std::printf("%llu %llu %u %llu\n", totals[0], totals[1], mismatches, totals[2]);
    if (print) for (const Prefix& p : prefixes) std::printf("%u %u %u %u\n", p.board, p.cols, p.ld, p.rd);
    return 0;
}
