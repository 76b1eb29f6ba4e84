// Runs kernels/count.cu on the CPU, so that the kernel's search can be checked where there
// is no GPU (tests/suite/kernel_on_cpu.rs builds and drives it).
//
// The counting entry points are warp-synchronous (their lanes vote and hand work to each
// other), so each of a block's 128 threads runs as a fiber of its own, and a warp's 32
// fibers take turns: at every warp intrinsic a lane leaves its value and yields, and reads
// the others' once all 32 have left theirs, as lanes do in step on the GPU. expand_prefixes
// has no intrinsics: each of its threads runs to the end before the next starts.
//
// Reads from stdin: n depth boards, each board's n row windows as the kernel reads them
// (free, due, the next two rows' free: see row_windows in src/gpu/launch.rs), the weights,
// the entry point (0 count_prefixes, 1 count_prefixes_due, 2 count_prefixes_uniform, 3 to 5 the
// same whose lanes share work: see EntryPoint in src/gpu/module.rs), the rows
// to expand the roots by, whether to print the expanded prefixes (0 or 1), the root count,
// then each root as board cols ld rd and how many prefixes it expands to. Expands the roots
// with expand_prefixes, counts the result with one block of 128 threads, and prints the weighted solutions, the nodes, the mismatches and
// whether the sum wrapped, then the prefixes as board cols ld rd if asked.
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <ucontext.h>
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
static unsigned int min(unsigned int a, unsigned int b) { return a < b ? a : b; }
static unsigned int atomicAdd(unsigned int* p, unsigned int v) { unsigned int old = *p; *p += v; return old; }
static unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) { unsigned long long old = *p; *p += v; return old; }

// The thread that runs now: its index in the block, and the block's.
struct Index { unsigned int x; };
static Index thread_index, block_index, block_dim = {128};
#define threadIdx thread_index
#define blockIdx block_index
#define blockDim block_dim

// Fibers: one per thread of a block, switched with _setjmp/_longjmp (no system call, unlike
// swapcontext) and started once with makecontext.
struct Fiber {
    jmp_buf at;
    ucontext_t start;
    std::vector<char> stack;
    bool done = false;
};
static std::vector<Fiber> fibers;
static unsigned int running;
static jmp_buf scheduler;
static void (*fiber_body)();

static void yield() {
    if (_setjmp(fibers[running].at) == 0) _longjmp(scheduler, 1);
}

static void fiber_main() {
    fiber_body();
    fibers[running].done = true;
    _longjmp(scheduler, 1);
}

// Runs `body` as `threads` fibers, each of them thread `i` of the block, round robin from one
// intrinsic to the next, until all have returned.
static void run_fibers(unsigned int threads, void (*body)()) {
    fiber_body = body;
    fibers.assign(threads, Fiber());
    ucontext_t here;
    for (auto& f : fibers) {
        f.stack.resize(1 << 16);
        getcontext(&f.start);
        f.start.uc_stack.ss_sp = f.stack.data();
        f.start.uc_stack.ss_size = f.stack.size();
        f.start.uc_link = &here;
        makecontext(&f.start, fiber_main, 0);
    }
    std::vector<bool> started(threads, false);
    for (bool any = true; any;) {
        any = false;
        for (running = 0; running < threads; ++running) {
            if (fibers[running].done) continue;
            any = true;
            thread_index.x = running;
            if (_setjmp(scheduler) == 0) {
                if (!started[running]) {
                    started[running] = true;
                    swapcontext(&here, &fibers[running].start);
                } else {
                    _longjmp(fibers[running].at, 1);
                }
            }
        }
    }
}

// Warp intrinsics: a lane leaves its value in its warp's slots for this round (two rounds'
// slots, so that a lane that has gone on cannot overwrite what a slower one still reads)
// and yields; every lane of the warp has left its value by the time it runs again.
static unsigned long long slots[2][128];
static unsigned int rounds[128];

static const unsigned long long* exchange(unsigned long long v) {
    const unsigned int t = thread_index.x;
    const unsigned int r = rounds[t]++ & 1;
    slots[r][t] = v;
    yield();
    thread_index.x = t;
    return &slots[r][t & ~31u];
}
static unsigned int __ballot_sync(unsigned int, bool p) {
    const unsigned long long* all = exchange(p);
    unsigned int mask = 0;
    for (unsigned int lane = 0; lane < 32; ++lane) mask |= static_cast<unsigned int>(all[lane] != 0) << lane;
    return mask;
}
static bool __any_sync(unsigned int m, bool p) { return __ballot_sync(m, p) != 0; }
static void __syncwarp(unsigned int) { exchange(0); }
static unsigned long long __shfl_sync(unsigned int, unsigned long long v, int from) { return exchange(v)[from]; }
static unsigned int __shfl_sync(unsigned int, unsigned int v, int from) { return static_cast<unsigned int>(exchange(v)[from]); }
static unsigned long long __shfl_down_sync(unsigned int, unsigned long long v, int by) {
    const unsigned int lane = thread_index.x & 31u;
    const unsigned long long* all = exchange(v);
    return lane + by < 32 ? all[lane + by] : v;
}

// The kernel's PTX helpers. Stack addresses are byte offsets into `stack`, as into the
// shared window.
#define NQUEEN_HOST
uint4 stack[128 * 32];
static int in_register(int v) { return v; }
static unsigned int stack_address(const uint4* p) { return static_cast<unsigned int>((p - stack) * sizeof(uint4)); }
static uint4 stack_load(unsigned int a) { return stack[a / sizeof(uint4)]; }
static void stack_store(unsigned int a, uint4 s) { stack[a / sizeof(uint4)] = s; }
static uint4 row_load(const uint4* p) { return *p; }
static unsigned int lane_bit() { return 1u << (thread_index.x & 31u); }
static int lane_index() { return static_cast<int>(thread_index.x & 31u); }
static int nth_lane(unsigned int mask, unsigned int k) {
    for (int lane = 0; lane < 32; ++lane) {
        if ((mask >> lane & 1u) != 0 && k-- == 0) return lane;
    }
    std::abort();
}

#include "../../../kernels/count.cu"

// What the counting fibers share.
static struct {
    void (*kernel)(const Prefix*, unsigned int, const uint4*, const unsigned long long*, int, int, unsigned int*, unsigned long long*, unsigned int);
    const Prefix* prefixes;
    unsigned int count;
    const uint4* windows;
    const unsigned long long* weights;
    int n, depth;
    unsigned int next;
    unsigned long long totals[3];
} job;

static void count_thread() {
    job.kernel(job.prefixes, job.count, job.windows, job.weights, job.n, job.depth, &job.next, job.totals, block_dim.x * sizeof(uint4));
}

int main() {
    int n, depth, boards;
    if (std::scanf("%d %d %d", &n, &depth, &boards) != 3) return 2;
    std::vector<uint4> windows(static_cast<size_t>(boards) * n);
    for (auto& w : windows) if (std::scanf("%u %u %u %u", &w.x, &w.y, &w.z, &w.w) != 4) return 2;
    std::vector<unsigned long long> weights(boards);
    for (auto& w : weights) if (std::scanf("%llu", &w) != 1) return 2;
    unsigned int entry, extra, print, roots;
    if (std::scanf("%u %u %u %u", &entry, &extra, &print, &roots) != 4 || entry > 5) return 2;
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
    block_dim.x = 64;
    for (unsigned int i = 0; i < roots; ++i) {
        block_index.x = i / block_dim.x;
        thread_index.x = i % block_dim.x;
        expand_prefixes(base.data(), roots, offsets.data(), windows.data(), n, depth, static_cast<int>(extra), prefixes.data(), &mismatches);
    }
    block_dim.x = 128;
    decltype(job.kernel) kernels[] = {count_prefixes, count_prefixes_due, count_prefixes_uniform,
                                      count_prefixes_shared, count_prefixes_due_shared, count_prefixes_uniform_shared};
    job.kernel = kernels[entry];
    job.prefixes = prefixes.data();
    job.count = count;
    job.windows = windows.data();
    job.weights = weights.data();
    job.n = n;
    job.depth = depth + static_cast<int>(extra);
    block_index.x = 0;
    run_fibers(block_dim.x, count_thread);
    std::printf("%llu %llu %u %llu\n", job.totals[0], job.totals[1], mismatches, job.totals[2]);
    if (print) for (const Prefix& p : prefixes) std::printf("%u %u %u %u\n", p.board, p.cols, p.ld, p.rd);
    return 0;
}
