// nqueen's GPU counter: completes every prefix (a partial board, `depth` rows filled) and
// adds up the weighted solutions. The same search as src/cpu.rs, one thread per prefix.
// The prefixes are made here too, from the host's shallower ones (expand_prefixes, at the
// end).
//
// - Prefixes are handed out through a global atomic counter, one at a time per thread, so
//   a thread that finishes early takes the next prefix at once.
// - In the last launches of a count, the *_shared entry points: once the prefixes are used
//   up, a lane with nothing left takes the shallowest kept row of a lane of its warp that
//   still has work (share_work), so that the warp's lanes end together instead of 31 of
//   them waiting for the slowest one. That costs a vote of the warp on every pass, which
//   earlier launches leave out: their tails overlap the next launch.
// - The explicit stack lives in shared memory, laid out [level][thread] so that the lanes
//   of a warp touch consecutive 16-byte words (no bank conflicts). It holds only the rows
//   that still have cells to try.
// - The last two rows are counted in closed form (see last_two_rows), as on the CPU.
// - Counts are 64-bit; each thread sums its own, warp shuffles and one atomic per warp
//   reduce them.
// - Each row comes with its due columns (columns that must hold a queen once the row is
//   filled; see due_columns in src/board.rs). Plans where none are due before the last two
//   rows use the count_prefixes entry point, which never looks at them and so keeps the
//   hot loop short; the others use count_prefixes_due.
// - Plans whose boards each have the same free cells in every row below the prefixes (an
//   empty board, or obstacles only in the rows the prefixes fill) and no due columns use
//   count_prefixes_uniform, which keeps that one row in a register instead of reading
//   the rows.
//
// Compiled at run time by NVRTC; no standard headers are available there.

struct Prefix {
    unsigned int board; // index into the plan's boards
    unsigned int cols;  // occupied columns
    unsigned int ld;    // next row's cells attacked along down-right diagonals
    unsigned int rd;    // next row's cells attacked along down-left diagonals
};

// Solutions of the last two rows: `a` is row n-2's free cells, `base` row n-1's before row
// n-2's queen. A queen at bit b of row n-2 takes exactly b, b<<1 and b>>1 from row n-1, so
// the count is |a|*|base| less, for each cell of base, how many of a, a<<1 and a>>1 hold
// it. That number is written in two bit planes (their XOR, and their majority for the 2s),
// so two popcounts count what would take three.
__device__ __forceinline__ unsigned int last_two_rows(unsigned int a, unsigned int base) {
    const unsigned int s = a << 1, t = a >> 1;
    return __popc(a) * __popc(base) - __popc(base & (a ^ s ^ t)) - 2 * __popc(base & ((a & s) | (a & t) | (s & t)));
}

// A row's cells `avail` narrowed to the one due column still empty, none if two or more
// are (`late`: the row's due columns not yet taken), as next_cells in src/prefix.rs does.
__device__ __forceinline__ unsigned int narrowed(unsigned int avail, unsigned int late) {
    return late ? ((late & (late - 1)) ? 0u : (avail & late)) : avail;
}

// narrowed's rule as the counting loop applies it: to the due columns still empty, all of
// them. Due columns are those with no free cell below the row (due_columns in
// src/board.rs), so they stay due in every row after: when two are late, a queen in one
// leaves the other late in the next row, where it has no cell, and the branch ends there,
// one row later. Counts are the same and the loop is 3 instructions shorter. The
// expansion keeps narrowed, since the host counts its prefixes with that rule.
__device__ __forceinline__ unsigned int narrowed_late(unsigned int avail, unsigned int late) {
    return late ? (avail & late) : avail;
}

// A row's free cells not attacked by cols, ld and rd; with DUE, narrowed to its due column.
template <bool DUE>
__device__ __forceinline__ unsigned int next_cells(uint4 row, unsigned int cols, unsigned int ld, unsigned int rd) {
    const unsigned int avail = row.x & ~(cols | ld | rd);
    return DUE ? narrowed(avail, row.y & ~cols) : avail;
}

// Helpers written in PTX. tests/kernel/host.cpp defines NQUEEN_HOST and its own versions
// of them, to run the kernel on the CPU.
#ifndef NQUEEN_HOST
// `v` kept in a register: for a value the loop compares with on every pass, ptxas
// otherwise reloads it from the parameters and recomputes it each time.
__device__ __forceinline__ int in_register(int v) {
    int r;
    asm volatile("mov.b32 %0, %1;" : "=r"(r) : "r"(v));
    return r;
}
// The stack is addressed by 32-bit offsets in the shared window: with a C++ pointer the
// compiler kept 64-bit address arithmetic on every push and step back.
__device__ __forceinline__ unsigned int stack_address(const uint4* p) {
    unsigned int a;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
    return a;
}
__device__ __forceinline__ uint4 stack_load(unsigned int a) {
    uint4 s;
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(s.x), "=r"(s.y), "=r"(s.z), "=r"(s.w) : "r"(a) : "memory");
    return s;
}
// A row window from the table. As a plain C++ load, ptxas copied the board's 64-bit
// base into the load's destination registers on every pass of the due-column loop.
__device__ __forceinline__ uint4 row_load(const uint4* p) {
    uint4 s;
    asm("ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(s.x), "=r"(s.y), "=r"(s.z), "=r"(s.w) : "l"(p));
    return s;
}
__device__ __forceinline__ void stack_store(unsigned int a, uint4 s) {
    asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};" :: "r"(a), "r"(s.x), "r"(s.y), "r"(s.z), "r"(s.w) : "memory");
}
__device__ __forceinline__ unsigned int lane_bit() {
    unsigned int m;
    asm("mov.u32 %0, %%lanemask_eq;" : "=r"(m));
    return m;
}
__device__ __forceinline__ int lane_index() {
    int i;
    asm("mov.u32 %0, %%laneid;" : "=r"(i));
    return i;
}
// The lane of the `k`-th set bit of `mask`, from 0.
__device__ __forceinline__ int nth_lane(unsigned int mask, unsigned int k) {
    return (int)__fns(mask, 0u, (int)k + 1);
}
#endif

// Every lane of a warp.
constexpr unsigned int FULL_WARP = 0xffffffffu;

// Each thread's stack: [entry][blockDim.x], at most one entry a row (count_all), or the
// rows above the one being filled (expand_prefixes). Dynamic shared memory, sized at launch.
extern __shared__ uint4 stack[];

// This thread's first stack entry, as a 32-bit shared address.
__device__ __forceinline__ unsigned int home_address() {
    return stack_address(stack + threadIdx.x);
}

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

// Hands work from lanes with kept rows to the `hungry` lanes of the warp (those with
// nothing left to search, the prefixes being used up): each taker gets the shallowest kept
// row of one giver, the row with the most left below it, and the giver's stack then starts
// above it. A lane gives only where it keeps work of its own. Called by the whole warp.
__device__ __forceinline__ void share_work(
    unsigned int hungry, unsigned int stride, unsigned int& base, unsigned int& sp, unsigned int& avail,
    unsigned int& cols, unsigned int& ld, unsigned int& rd, const uint4* rows_all, const uint4*& rows,
    unsigned long long& weight)
{
    const unsigned int me = lane_bit();
    const bool gives = sp != base && (avail != 0 || sp - base != stride);
    const unsigned int givers = __ballot_sync(FULL_WARP, gives);
    const unsigned int pairs = min(__popc(hungry), __popc(givers));
    const unsigned int takers_before = __popc(hungry & (me - 1u)), givers_before = __popc(givers & (me - 1u));
    const bool takes = (hungry & me) != 0 && takers_before < pairs;
    const int from = takes ? nth_lane(givers, takers_before) : lane_index();
    const unsigned int their_base = __shfl_sync(FULL_WARP, base, from);
    const unsigned int their_rows = __shfl_sync(FULL_WARP, (unsigned int)(rows - rows_all), from);
    const unsigned long long their_weight = __shfl_sync(FULL_WARP, weight, from);
    if (takes) {
        const uint4 s = stack_load(their_base);
        avail = s.x; cols = s.y; ld = s.z; rd = s.w;
        rows = rows_all + their_rows;
        weight = their_weight;
        base = sp = home_address();
    }
    if (gives && givers_before < pairs) base += stride;
    // The taken entries are read before any giver can push over them.
    __syncwarp(FULL_WARP);
}

// How an entry point reads the rows below the prefixes (see the list at the top).
enum RowKind { ROWS_PLAIN, ROWS_DUE, ROWS_UNIFORM };

// A lane's state at the start of prefix `p`: its board's rows and weight, its columns and
// diagonals, and the cells of its next row; or, within two rows of the end, its count in
// `sub`, and true: nothing is left to search.
template <RowKind KIND>
__device__ __forceinline__ bool start_prefix(
    const Prefix p, const uint4* __restrict__ rows_all, const unsigned long long* __restrict__ weights, int n, int depth,
    const uint4*& rows, unsigned long long& weight, unsigned long long& sub, unsigned int& avail, unsigned int& cols,
    unsigned int& ld, unsigned int& rd, unsigned int& uniform_cells)
{
    rows = rows_all + (size_t)p.board * n;
    weight = weights[p.board];
    cols = p.cols; ld = p.ld; rd = p.rd;
    if (depth + 2 >= n) {
        // Within two rows of the end: nothing to search.
        const unsigned int occ = cols | ld | rd;
        if (depth == n) sub = 1;
        else if (depth == n - 1) sub = __popc(rows[depth].x & ~occ);
        else sub = last_two_rows(rows[depth].x & ~occ, rows[depth].z & ~(cols | (ld << 1) | (rd >> 1)));
        return true;
    }
    if (KIND == ROWS_UNIFORM) uniform_cells = rows[depth].x;
    avail = next_cells<KIND == ROWS_DUE>(rows[depth], cols, ld, rd);
    return false;
}

template <RowKind KIND, bool SHARE>
__device__ __forceinline__ void count_all(
    const Prefix* __restrict__ prefixes,
    unsigned int num_prefixes,
    // Board b's row r at [b * n + r]: its free cells and due columns, then the free cells of
    // rows r+1 and r+2 (see row_windows in src/gpu/launch.rs).
    const uint4* __restrict__ rows_all,
    const unsigned long long* __restrict__ weights,
    int n,
    int depth,
    unsigned int* next_prefix,                 // the shared work counter, zero at launch
    unsigned long long* totals,                // [0] weighted solutions, [1] nodes, [2] set on a wrap
    unsigned int stride)                       // bytes from a thread's stack entry to its next
{
    constexpr bool DUE = KIND == ROWS_DUE, UNIFORM = KIND == ROWS_UNIFORM;
    // In a register: ptxas otherwise reloads it from the parameters on every pass.
    const int last2 = in_register(n - 2);

    unsigned long long solutions = 0;
    // Nodes are counted in a double: one instruction on the otherwise idle FP64 pipe instead
    // of two on the integer pipe, which the loop keeps busy, and exact up to 2^53 nodes a
    // thread.
    double nodes = 0.0;
    unsigned long long sub = 0, weight = 0;     // current prefix's count and weight
    const uint4* rows = rows_all;
    unsigned int avail = 0, cols = 0, ld = 0, rd = 0;
    unsigned int uniform_cells = 0;             // UNIFORM: every row's free cells below the prefix
    // This thread's next free stack entry, a 32-bit shared address moved by `stride` bytes
    // (passed in, not read from blockDim): fewer instructions than indexing from the row.
    // The stack holds the entries from base up to sp: it is empty when sp is back at base;
    // no separate count of entries is kept. Only share_work moves base, up past an entry
    // it gives away.
    unsigned int base = home_address();
    unsigned int sp = base;
    // This lane found the prefixes used up.
    bool exhausted = false;
    // In the due-column and uniform loops, ptxas reloaded the stride from the parameters at
    // every push and step back; the XOR through PTX hides that it is one (2 to 4 loop
    // instructions fewer; in the plain loop it made the code longer).
    if (DUE || UNIFORM) stride = (unsigned int)in_register((int)(stride ^ 1u)) ^ 1u;

    for (;;) {
        // A new prefix when this one is done, then a step back when the row is used up:
        // two flat tests, so that the compiler predicates the step back instead of
        // branching around it (as arms of one `if (avail == 0)`, the step back sat in a
        // divergent branch).
        if (!SHARE && (avail | (sp ^ base)) == 0) {
            bool done = false;
            do {
                solutions += weight * sub;
                sub = 0;
                const unsigned int i = atomicAdd(next_prefix, 1u);
                if (i >= num_prefixes) { done = true; break; }
                if (start_prefix<KIND>(prefixes[i], rows_all, weights, n, depth, rows, weight, sub, avail, cols, ld, rd, uniform_cells)) continue;
            } while (avail == 0);
            if (done) break;
        }
        // With SHARE, the whole warp comes here together when any of its lanes needs work;
        // once the prefixes are used up, such lanes take work from the others, and the warp
        // ends once none has any left.
        if (SHARE && __any_sync(FULL_WARP, (avail | (sp ^ base)) == 0)) {
            if ((avail | (sp ^ base)) == 0) {
                while (!exhausted) {
                    solutions += weight * sub;
                    sub = 0;
                    const unsigned int i = atomicAdd(next_prefix, 1u);
                    if (i >= num_prefixes) {
                        exhausted = true;
                        break;
                    }
                    if (start_prefix<KIND>(prefixes[i], rows_all, weights, n, depth, rows, weight, sub, avail, cols, ld, rd, uniform_cells)) continue;
                    if (avail != 0) break;
                }
            }
            const unsigned int hungry = __ballot_sync(FULL_WARP, (avail | (sp ^ base)) == 0);
            if (hungry == FULL_WARP) {
                solutions += weight * sub;
                break;
            }
            if (hungry != 0) {
                solutions += weight * sub;
                sub = 0;
                share_work(hungry, stride, base, sp, avail, cols, ld, rd, rows_all, rows, weight);
                if (UNIFORM) uniform_cells = rows[depth].x;
                if ((avail | (sp ^ base)) == 0) continue;
            }
        }
        if (avail == 0) {
            // Only rows with cells left are kept, so one step up always lands on a cell
            // to try: no lane loops back up several rows while the others wait.
            sp -= stride;
            const uint4 s = stack_load(sp);
            avail = s.x; cols = s.y; ld = s.z; rd = s.w;
        }
        // Lowest set bit: two's complement leaves only it in common with avail.
        const unsigned int bit = avail & (0u - avail);
        // `bit` is a free cell, so it is in avail and in none of cols, ld and rd: adding and
        // subtracting it is setting and clearing it, and ptxas can issue an add on the FMA
        // pipe (IMAD.IADD), where a logic op takes the integer pipe that bounds the loop.
        avail -= bit;
        nodes += 1.0;
        const unsigned int nc = cols + bit, nl = (ld + bit) << 1, nr = (rd + bit) >> 1;
        // The next two rows' cells after this queen: at row n-3 they are the last two
        // rows, counted in closed form; above it, the next row's cells and a look-ahead.
        // One load brings the next three rows.
        // Each filled row holds one queen, so the next row is the number of columns taken:
        // no row counter to keep (1 to 2 loop instructions).
        const int next_row = (int)__popc(nc);
        const uint4 r1 = UNIFORM ? make_uint4(uniform_cells, 0u, uniform_cells, uniform_cells) : row_load(rows + next_row);
        const unsigned int x1 = r1.x & ~(nc | nl | nr);
        const unsigned int m2 = r1.z & ~(nc | (nl << 1) | (nr >> 1));
        if (next_row == last2) {
            sub += last_two_rows(x1, m2);
            continue;
        }
        // Look two rows further before going down: a queen that leaves one of them no cell
        // would cost passes to find out. Here row + 3 <= n - 1. A third row of look-ahead
        // costs more than it saves.
        const unsigned int m3 = r1.w & ~(nc | (nl << 2) | (nr >> 2));
        if ((m2 == 0) | (m3 == 0)) continue;
        // A row with no cells left is not kept: the search would only come back to it
        // to leave it again, and lanes backing up through such rows in a loop waited on
        // the one that backed up furthest. Written always and kept only with cells left:
        // no branch. Within bounds, since a step down comes from row n-4 at most, with at
        // most n-4-depth rows kept.
        stack_store(sp, make_uint4(avail, cols, ld, rd));
        const bool keep = avail != 0;
        sp += keep ? stride : 0u;
        cols = nc; ld = nl; rd = nr;
        // The next row's cells are x1: narrowing them is cheaper than reading the row again
        // through next_cells.
        avail = DUE ? narrowed_late(x1, r1.y & ~cols) : x1;
    }

    // Reduction: warp shuffles, then one atomic per warp into the totals. A launch's
    // solutions are summed in 64 bits, which the host adds in 128: the last sum is checked
    // for a wrap (a thread's or a warp's sum could only wrap after centuries of counting).
    solutions = warp_sum(solutions);
    const unsigned long long warp_nodes = warp_sum((unsigned long long)nodes);
    if ((threadIdx.x & 31) == 0) {
        const unsigned long long before = atomicAdd(&totals[0], solutions);
        if (before + solutions < before) totals[2] = 1;
        atomicAdd(&totals[1], warp_nodes);
    }
}

// The counting entry points, one per RowKind; src/gpu/module.rs picks one per plan.
#define COUNTER(name, kind, share)                                                                          \
    extern "C" __global__ void __launch_bounds__(256) name(                                           \
        const Prefix* __restrict__ prefixes, unsigned int num_prefixes, const uint4* __restrict__ rows_all, \
        const unsigned long long* __restrict__ weights, int n, int depth, unsigned int* next_prefix,  \
        unsigned long long* totals, unsigned int stride)                                              \
    {                                                                                                 \
        count_all<kind, share>(prefixes, num_prefixes, rows_all, weights, n, depth, next_prefix, totals, stride); \
    }
COUNTER(count_prefixes, ROWS_PLAIN, false)
COUNTER(count_prefixes_due, ROWS_DUE, false)
COUNTER(count_prefixes_uniform, ROWS_UNIFORM, false)
COUNTER(count_prefixes_shared, ROWS_PLAIN, true)
COUNTER(count_prefixes_due_shared, ROWS_DUE, true)
COUNTER(count_prefixes_uniform_shared, ROWS_UNIFORM, true)

// Expands each root (a prefix made on the host) `extra` rows further, lowest column first
// as src/prefix.rs does, one thread per root: root i's prefixes go to out[offsets[i]] up to
// out[offsets[i + 1]], a number the host worked out beforehand (Deeper::per_root). A root
// that yields another number is counted in `mismatches` and writes nothing past its share.
// Made here rather than on the host, no stream waits for prefixes to be made and copied.
extern "C" __global__ void __launch_bounds__(64) expand_prefixes(
    const Prefix* __restrict__ roots, unsigned int num_roots, const unsigned int* __restrict__ offsets,
    const uint4* __restrict__ rows_all, int n, int depth, int extra, Prefix* __restrict__ out,
    unsigned int* mismatches)
{
    // The stack holds the rows above the one being filled: [row below the root][blockDim.x],
    // each its cells left, columns and diagonals. In shared memory, not a local array, for
    // which the driver would set local memory aside for every thread the GPU can hold.
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= num_roots) return;
    const Prefix root = roots[i];
    const uint4* rows = rows_all + (size_t)root.board * n;
    unsigned int at = offsets[i];
    const unsigned int end = offsets[i + 1];
    if (extra == 0) {
        if (end - at == 1) out[at] = root;
        else atomicAdd(mismatches, 1u);
        return;
    }
    int level = 0;
    uint4 row = make_uint4(next_cells<true>(rows[depth], root.cols, root.ld, root.rd), root.cols, root.ld, root.rd);
    for (;;) {
        if (row.x == 0) {
            if (level == 0) break;
            --level;
            row = stack[level * blockDim.x + threadIdx.x];
            continue;
        }
        const unsigned int bit = row.x & (0u - row.x);
        row.x ^= bit;
        const Prefix p = {root.board, row.y | bit, (row.z | bit) << 1, (row.w | bit) >> 1};
        if (level + 1 == extra) {
            if (at < end) out[at] = p;
            ++at;
            continue;
        }
        stack[level * blockDim.x + threadIdx.x] = row;
        ++level;
        row = make_uint4(next_cells<true>(rows[depth + level], p.cols, p.ld, p.rd), p.cols, p.ld, p.rd);
    }
    if (at != end) atomicAdd(mismatches, 1u);
}
