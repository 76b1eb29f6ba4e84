// The last k rows joined against a table in device memory, as one measured experiment
// beside nqueen's search kernel (issue: "the GPU, as one measured experiment"). Not part of
// the product: built by nvcc on a GPU machine by scripts/gpu/join_experiment.sh.
//
// A board here is n x n, empty but for its first row, whose free cells are `mask`. The
// table holds, for every set of k columns, every placement of the last k rows in them as
// bit planes: plane x of the l (r) side has bit j of word w set when placement 32w+j uses
// down-right (down-left) diagonal x of the band's top row; only the diagonals some
// placement of the set uses get a plane. A partial board on the band's top row with
// attacks ld, rd completes in as many ways as there are placements left after OR-ing the
// planes of ld's and rd's diagonals: popcounts of the words not set.
//
// The device counts level by level: boards of row r are expanded to row r+1 in chunks
// whose children fit a buffer, down to the band's top row, where each partial board
// becomes a request (its set's rank, ld, rd). The requests of a chunk are sorted by set
// (cub's radix sort), so that the groups of lanes joining neighbouring requests read the
// same set's planes, which then come from L1 and L2; `sorted=0` joins them as they come,
// as a per-thread join in global memory does. Each request is joined by G lanes, which
// split the set's words.
//
// usage: join_experiment N K MASK G SORTED    (MASK in hex, 0 for every column)
// prints one line: the count and each phase's time.

#include <cub/cub.cuh>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                                    \
    do {                                                                                            \
        cudaError_t e_ = (x);                                                                       \
        if (e_ != cudaSuccess) {                                                                    \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));            \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

struct Node {
    uint32_t cols, ld, rd;
};

// binom[a][b] = C(a, b) for a <= 32, b <= 16: a set's rank is sum C(c_i, i + 1) over its
// columns c_0 < c_1 < ..., which is its place in increasing order of the masks.
__device__ uint32_t d_binom[33][17];
static uint64_t h_binom[33][17];

static void fill_binom() {
    for (int a = 0; a <= 32; ++a)
        for (int b = 0; b <= 16; ++b)
            h_binom[a][b] = b == 0 ? 1 : a == 0 ? 0 : h_binom[a - 1][b - 1] + h_binom[a - 1][b];
}

// ---------------------------------------------------------------------------------------
// The table, made on the host.

struct Table {
    int n, k;
    std::vector<uint32_t> masks;  // set by rank
    std::vector<uint64_t> offset; // its first word
    std::vector<uint32_t> len;    // its placements
    std::vector<uint32_t> lmask, rmask;
    std::vector<uint32_t> words;
    uint64_t entries = 0;
};

// Every placement of the band's k queens in the columns of `set`, as (l, r) signatures.
template <class F>
static void placements(int n, int k, uint32_t set, F&& each) {
    struct Frame {
        uint32_t avail, used, a, b, l, r;
    };
    Frame st[17];
    int i = 0;
    st[0] = {set, 0, 0, 0, 0, 0};
    for (;;) {
        Frame& f = st[i];
        if (f.avail == 0) {
            if (i == 0) return;
            --i;
            continue;
        }
        const uint32_t bit = f.avail & (0u - f.avail);
        f.avail ^= bit;
        const int c = __builtin_ctz(bit);
        const uint32_t l = f.l | (c >= i ? 1u << (c - i) : 0u);
        const uint32_t r = f.r | (c + i < n ? 1u << (c + i) : 0u);
        if (i + 1 == k) {
            each(l, r);
            continue;
        }
        const uint32_t used = f.used | bit, a = (f.a | bit) << 1, b = (f.b | bit) >> 1;
        st[i + 1] = {set & ~(used | a | b), used, a, b, l, r};
        ++i;
    }
}

static Table build_table(int n, int k) {
    Table t;
    t.n = n;
    t.k = k;
    for (uint32_t s = (1u << k) - 1; s < (1u << n);) {
        t.masks.push_back(s);
        const uint32_t c = s & (0u - s), r = s + c;
        s = (((r ^ s) >> 2) / c) | r;
    }
    const size_t sets = t.masks.size();
    t.offset.assign(sets + 1, 0);
    t.len.assign(sets, 0);
    t.lmask.assign(sets, 0);
    t.rmask.assign(sets, 0);
#pragma omp parallel for schedule(dynamic, 64)
    for (size_t s = 0; s < sets; ++s) {
        uint32_t e = 0, lm = 0, rm = 0;
        placements(n, k, t.masks[s], [&](uint32_t l, uint32_t r) { ++e, lm |= l, rm |= r; });
        t.len[s] = e;
        t.lmask[s] = lm;
        t.rmask[s] = rm;
    }
    for (size_t s = 0; s < sets; ++s) {
        const uint64_t w = (t.len[s] + 31) / 32;
        t.offset[s + 1] = t.offset[s] + w * (__builtin_popcount(t.lmask[s]) + __builtin_popcount(t.rmask[s]));
        t.entries += t.len[s];
    }
    t.words.assign(t.offset[sets], 0);
#pragma omp parallel for schedule(dynamic, 64)
    for (size_t s = 0; s < sets; ++s) {
        const uint32_t lm = t.lmask[s], rm = t.rmask[s], nl = __builtin_popcount(lm);
        const uint64_t w = (t.len[s] + 31) / 32;
        uint32_t* p = t.words.data() + t.offset[s];
        uint32_t j = 0;
        placements(n, k, t.masks[s], [&](uint32_t l, uint32_t r) {
            for (uint32_t x = l; x; x &= x - 1)
                p[__builtin_popcount(lm & ((x & (0u - x)) - 1)) * w + j / 32] |= 1u << (j % 32);
            for (uint32_t x = r; x; x &= x - 1)
                p[(nl + __builtin_popcount(rm & ((x & (0u - x)) - 1))) * w + j / 32] |= 1u << (j % 32);
            ++j;
        });
    }
    return t;
}

// ---------------------------------------------------------------------------------------
// The device's steps.

// Children of each board one row down, at an atomic cursor (each board's at once).
__global__ void expand(const Node* in, size_t m, Node* out, unsigned long long* cursor, uint32_t full) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= m) return;
    const Node a = in[i];
    uint32_t avail = full & ~(a.cols | a.ld | a.rd);
    if (avail == 0) return;
    unsigned long long at = atomicAdd(cursor, (unsigned long long)__popc(avail));
    while (avail) {
        const uint32_t bit = avail & (0u - avail);
        avail ^= bit;
        out[at++] = {a.cols | bit, ((a.ld | bit) << 1) & full, (a.rd | bit) >> 1};
    }
}

// The last step down, to the band's top row: each child as a request, its set's rank as
// the key and its attacks on that row as the value.
__global__ void expand_to_band(const Node* in, size_t m, uint32_t* keys, uint64_t* vals, unsigned long long* cursor,
                               uint32_t full) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= m) return;
    const Node a = in[i];
    uint32_t avail = full & ~(a.cols | a.ld | a.rd);
    if (avail == 0) return;
    unsigned long long at = atomicAdd(cursor, (unsigned long long)__popc(avail));
    while (avail) {
        const uint32_t bit = avail & (0u - avail);
        avail ^= bit;
        uint32_t free = full & ~(a.cols | bit), rank = 0;
        for (int j = 1; free; ++j, free &= free - 1) rank += d_binom[__ffs(free) - 1][j];
        keys[at] = rank;
        vals[at] = (uint64_t)(((a.ld | bit) << 1) & full) | ((uint64_t)((a.rd | bit) >> 1) << 32);
        ++at;
    }
}

// G lanes a request: each ORs the attacked planes' words it takes and counts the
// placements left in them.
template <int G>
__global__ void __launch_bounds__(256) join(const uint32_t* __restrict__ keys, const uint64_t* __restrict__ vals, size_t m,
                                            const uint64_t* __restrict__ offset, const uint32_t* __restrict__ len,
                                            const uint32_t* __restrict__ lmask, const uint32_t* __restrict__ rmask,
                                            const uint32_t* __restrict__ words, unsigned long long* total) {
    const size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t groups = (gridDim.x * (size_t)blockDim.x) / G;
    const uint32_t lane = tid % G;
    unsigned long long sum = 0;
    for (size_t i = tid / G; i < m; i += groups) {
        const uint32_t key = keys[i];
        const uint64_t v = vals[i];
        const uint32_t e = len[key], w = (e + 31) / 32, lm = lmask[key], rm = rmask[key];
        const uint32_t tl = (uint32_t)v & lm, tr = (uint32_t)(v >> 32) & rm, nl = __popc(lm);
        const uint32_t* p = words + offset[key];
        for (uint32_t x = lane; x < w; x += G) {
            uint32_t acc = 0;
            for (uint32_t t = tl; t; t &= t - 1) acc |= __ldg(p + __popc(lm & ((t & (0u - t)) - 1)) * w + x);
            for (uint32_t t = tr; t; t &= t - 1) acc |= __ldg(p + (nl + __popc(rm & ((t & (0u - t)) - 1))) * w + x);
            const uint32_t valid = (x + 1 == w && (e & 31)) ? (1u << (e & 31)) - 1 : 0xffffffffu;
            sum += __popc(~acc & valid);
        }
    }
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(total, sum);
}

// ---------------------------------------------------------------------------------------

struct Run {
    int n, k, g;
    bool sorted;
    uint32_t full;
    size_t cap;
    std::vector<Node*> level;  // boards of each row above the band, cap each
    uint32_t *keys[2];
    uint64_t *vals[2];
    void* sort_temp = nullptr;
    size_t sort_temp_bytes = 0;
    int end_bit;
    unsigned long long *cursor, *total;
    const uint64_t* offset;
    const uint32_t *len, *lmask, *rmask, *words;
    cudaEvent_t e0, e1, e2, e3;
    double expand_s = 0, sort_s = 0, join_s = 0;
    unsigned long long requests = 0, nodes = 0;
    int join_blocks;

    unsigned long long take_cursor() {
        unsigned long long c;
        CHECK(cudaMemcpy(&c, cursor, sizeof c, cudaMemcpyDeviceToHost));
        CHECK(cudaMemset(cursor, 0, sizeof c));
        return c;
    }

    static float between(cudaEvent_t a, cudaEvent_t b) {
        float ms;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        return ms / 1000.0f;
    }

    // Boards of row r (count of them at `in`) counted to the end.
    void descend(int r, const Node* in, size_t count) {
        const size_t chunk = cap / (size_t)(n - r);
        for (size_t start = 0; start < count; start += chunk) {
            const size_t m = count - start < chunk ? count - start : chunk;
            const unsigned blocks = (unsigned)((m + 255) / 256);
            if (r + 1 < n - k) {
                CHECK(cudaEventRecord(e0));
                expand<<<blocks, 256>>>(in + start, m, level[r + 1], cursor, full);
                CHECK(cudaEventRecord(e1));
                const unsigned long long c = take_cursor();
                expand_s += between(e0, e1);
                nodes += c;
                descend(r + 1, level[r + 1], c);
                continue;
            }
            CHECK(cudaEventRecord(e0));
            expand_to_band<<<blocks, 256>>>(in + start, m, keys[0], vals[0], cursor, full);
            CHECK(cudaEventRecord(e1));
            const unsigned long long c = take_cursor();
            requests += c;
            nodes += c;
            int which = 0;
            if (sorted) {
                cub::DoubleBuffer<uint32_t> kb(keys[0], keys[1]);
                cub::DoubleBuffer<uint64_t> vb(vals[0], vals[1]);
                size_t bytes = sort_temp_bytes;
                CHECK(cub::DeviceRadixSort::SortPairs(sort_temp, bytes, kb, vb, (int)c, 0, end_bit));
                which = kb.selector;
            }
            CHECK(cudaEventRecord(e2));
            const uint32_t* kk = keys[which];
            const uint64_t* vv = vals[which];
            switch (g) {
                case 4: join<4><<<join_blocks, 256>>>(kk, vv, c, offset, len, lmask, rmask, words, total); break;
                case 8: join<8><<<join_blocks, 256>>>(kk, vv, c, offset, len, lmask, rmask, words, total); break;
                case 16: join<16><<<join_blocks, 256>>>(kk, vv, c, offset, len, lmask, rmask, words, total); break;
                default: join<32><<<join_blocks, 256>>>(kk, vv, c, offset, len, lmask, rmask, words, total); break;
            }
            CHECK(cudaGetLastError());
            CHECK(cudaEventRecord(e3));
            CHECK(cudaEventSynchronize(e3));
            expand_s += between(e0, e1);
            sort_s += between(e1, e2);
            join_s += between(e2, e3);
        }
    }
};

template <class T>
static T* upload(const std::vector<T>& v) {
    T* d;
    CHECK(cudaMalloc(&d, v.size() * sizeof(T) + 16));
    CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

static double since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

int main(int argc, char** argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s N K MASK G SORTED\n", argv[0]);
        return 2;
    }
    Run run;
    run.n = atoi(argv[1]);
    run.k = atoi(argv[2]);
    const uint32_t full = run.n >= 32 ? 0xffffffffu : (1u << run.n) - 1;
    uint32_t mask = (uint32_t)strtoul(argv[3], nullptr, 16);
    mask = mask ? mask & full : full;
    run.g = atoi(argv[4]);
    run.sorted = atoi(argv[5]) != 0;
    run.full = full;
    if (run.n < 4 || run.n > 24 || run.k < 2 || run.k > 12 || run.k > run.n - 2) {
        fprintf(stderr, "need 4 <= N <= 24 and 2 <= K <= min(12, N - 2)\n");
        return 2;
    }
    fill_binom();
    {
        uint32_t b32[33][17];
        for (int a = 0; a <= 32; ++a)
            for (int b = 0; b <= 16; ++b) b32[a][b] = (uint32_t)h_binom[a][b];
        CHECK(cudaMemcpyToSymbol(d_binom, b32, sizeof b32));
    }

    auto t = std::chrono::steady_clock::now();
    const Table table = build_table(run.n, run.k);
    const double build_s = since(t);
    t = std::chrono::steady_clock::now();
    run.offset = upload(table.offset);
    run.len = upload(table.len);
    run.lmask = upload(table.lmask);
    run.rmask = upload(table.rmask);
    run.words = upload(table.words);
    CHECK(cudaDeviceSynchronize());
    const double upload_s = since(t);
    run.end_bit = 1;
    while ((1ull << run.end_bit) < table.masks.size()) ++run.end_bit;

    run.cap = (size_t)1 << 26;
    run.level.assign(run.n, nullptr);
    for (int r = 1; r < run.n - run.k; ++r) CHECK(cudaMalloc(&run.level[r], run.cap * sizeof(Node)));
    for (int i = 0; i < 2; ++i) {
        CHECK(cudaMalloc(&run.keys[i], run.cap * sizeof(uint32_t)));
        CHECK(cudaMalloc(&run.vals[i], run.cap * sizeof(uint64_t)));
    }
    {
        cub::DoubleBuffer<uint32_t> kb(run.keys[0], run.keys[1]);
        cub::DoubleBuffer<uint64_t> vb(run.vals[0], run.vals[1]);
        CHECK(cub::DeviceRadixSort::SortPairs(nullptr, run.sort_temp_bytes, kb, vb, (int)run.cap, 0, run.end_bit));
        CHECK(cudaMalloc(&run.sort_temp, run.sort_temp_bytes));
    }
    CHECK(cudaMalloc(&run.cursor, sizeof(unsigned long long)));
    CHECK(cudaMalloc(&run.total, sizeof(unsigned long long)));
    CHECK(cudaMemset(run.cursor, 0, sizeof(unsigned long long)));
    CHECK(cudaMemset(run.total, 0, sizeof(unsigned long long)));
    for (cudaEvent_t* e : {&run.e0, &run.e1, &run.e2, &run.e3}) CHECK(cudaEventCreate(e));
    int sms;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    run.join_blocks = sms * 8;

    // Row 0: the mask's cells, each a board of row 1.
    std::vector<Node> roots;
    for (uint32_t m = mask; m; m &= m - 1) {
        const uint32_t bit = m & (0u - m);
        roots.push_back({bit, (bit << 1) & full, bit >> 1});
    }
    CHECK(cudaMemcpy(run.level[1], roots.data(), roots.size() * sizeof(Node), cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSynchronize());
    t = std::chrono::steady_clock::now();
    run.descend(1, run.level[1], roots.size());
    CHECK(cudaDeviceSynchronize());
    const double device_s = since(t);
    unsigned long long count;
    CHECK(cudaMemcpy(&count, run.total, sizeof count, cudaMemcpyDeviceToHost));
    printf("n=%d k=%d mask=%x G=%d sorted=%d count=%llu requests=%llu nodes_above=%llu sets=%zu entries=%llu "
           "table_bytes=%llu build_s=%.3f upload_s=%.3f device_s=%.3f expand_s=%.3f sort_s=%.3f join_s=%.3f\n",
           run.n, run.k, mask, run.g, (int)run.sorted, count, run.requests, run.nodes, table.masks.size(),
           (unsigned long long)table.entries, (unsigned long long)(table.words.size() * 4), build_s, upload_s,
           device_s, run.expand_s, run.sort_s, run.join_s);
    return 0;
}
