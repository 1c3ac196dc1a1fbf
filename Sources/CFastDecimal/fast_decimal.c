#include "fast_decimal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

// Level 0: every run declined.
static int no_decimals(const unsigned char *p, int count, unsigned char delimiter, double *values) {
    (void)p;
    (void)count;
    (void)delimiter;
    (void)values;
    return 0;
}

geofence_decimals_function geofence_plain_decimals_run = no_decimals;

// Levels 0 and 1: every row left to the caller.
static int no_rows(const unsigned char *p, long last_start, int accuracy, unsigned char delimiter, uint64_t day_head,
                   uint16_t day_tail, geofence_row *rows, int max, int *new_day) {
    (void)p, (void)last_start, (void)accuracy, (void)delimiter, (void)day_head, (void)day_tail, (void)rows, (void)max;
    *new_day = 0;
    return 0;
}

geofence_rows_function geofence_standard_rows_run = no_rows;

// Levels 0 and 1: no run read.
static int no_run_rows(const unsigned char *p, long last_start, int accuracy, unsigned char delimiter, uint64_t day_head,
                       uint16_t day_tail, geofence_run *run, geofence_fix *fixes, long *lines, int max, long *consumed,
                       long *last_row, int *stopped) {
    (void)p, (void)last_start, (void)accuracy, (void)delimiter, (void)day_head, (void)day_tail, (void)run, (void)fixes,
        (void)lines, (void)max;
    *consumed = 0;
    *last_row = 0;
    *stopped = 1;
    return 0;
}

geofence_run_function geofence_run_rows_run = no_run_rows;
static void choose_run(void);

// The widest path the CPU takes, set once before main: 0 none (the caller's fallback), 1 SSSE3
// (one number at a time), 2 AVX2 with the OS saving its registers (the numbers of a row at once,
// two per 256-bit register; with BMI1, POPCNT and FMA), 3 AVX-512 BW/DQ/VL on top of level 2, with
// the OS saving its registers (the numbers of a row at once: their masks in one 512-bit compare
// each, one, three or four converted in one 512-bit register, two in a 256-bit one; the row blocks'
// numbers in 256-bit registers); 0 on other processors.
// geofence_plain_decimals_level lowers it for the tests.
static int level = 0;
static int best_level = 0;

int geofence_plain_decimals_level(int wanted) {
    if (wanted >= 0) {
        level = wanted < best_level ? wanted : best_level;
        choose_run();
    }
    return level;
}

#if defined(__x86_64__)
#include <cpuid.h>
#include <tmmintrin.h>

#include <immintrin.h>

// By a number's length in bytes (end, 1...15, its sign included) and the place of its point
// (point; end - 1, the last digit's place, when it has none), as entry end * 16 + point:
// the pshufb mask that puts its digits last in 16 lanes, zeros before (lane i takes byte
// i + end - 16, the lanes before the point one byte earlier so that the point drops out; 0x80,
// a zero lane, where that is before the number), and 10^(digits after the point), exact.
static uint8_t masks[16 * 16][16];
static double scales[16 * 16];
// The same entries' 1 / 10^(digits after the point) as two doubles, high + low (the high part
// correctly rounded, the low part the rest correctly rounded), for the wide paths' quotients
// (store_quotients).
static double inverse_high[16 * 16], inverse_low[16 * 16];

__attribute__((constructor)) static void fast_decimal_init(void) {
    for (int end = 0; end < 16; end++) {
        for (int point = 0; point < 16; point++) {
            const int fraction = point < end ? end - 1 - point : 0;
            for (int i = 0; i < 16; i++) {
                int from = i + end - 16 - (fraction > 0 && i < 16 - fraction);
                masks[end * 16 + point][i] = from < 0 ? 0x80 : (uint8_t)from;
            }
            double scale = 1;
            for (int k = 0; k < fraction; k++) scale *= 10;                  // exact up to 10^22
            scales[end * 16 + point] = scale;
            // 1 - high * scale is exact (an integer of at most scale / 2 over the high part's
            // power of two, which the FMA gives unrounded), so low is (1 / scale - high)
            // correctly rounded.
            const double high = 1 / scale;
            inverse_high[end * 16 + point] = high;
            inverse_low[end * 16 + point] = fma(-high, scale, 1) / scale;
        }
    }
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSSE3)) return;
    const unsigned c1 = c;
    best_level = 1;
    // AVX2 (with BMI1, POPCNT and FMA) and AVX-512: the instructions (leaf 7; POPCNT in leaf 1) and
    // the OS saving the ymm registers (XCR0 bits 1, 2), for AVX-512 the opmask and zmm
    // registers too (bits 5, 6, 7), read through xgetbv, which OSXSAVE says is there. AVX-512
    // only on top of the AVX2 level: the tests run every level up to the best, and both wide
    // paths use BMI1 and POPCNT.
    if ((c & bit_OSXSAVE) && __get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        unsigned lo, hi;
        __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        if ((b & (bit_AVX2 | bit_BMI)) == (bit_AVX2 | bit_BMI) && (c1 & bit_POPCNT) && (c1 & bit_FMA) && (lo & 0x06) == 0x06)
            best_level = 2;
        const unsigned want = bit_AVX512F | bit_AVX512DQ | bit_AVX512BW | bit_AVX512VL;
        if (best_level == 2 && (b & want) == want && (lo & 0xE6) == 0xE6) best_level = 3;
    }
    level = best_level;
    choose_run();
}

// The plain decimal at q (16 bytes readable): its value into *value and its length (1...15),
// or 0 where geofence_plain_decimals declines it.
__attribute__((target("ssse3"), always_inline)) static inline unsigned number(const unsigned char *q, double *value) {
    const unsigned negative = q[0] == '-';
    const uint64_t sign = (uint64_t)negative << 63;
    const __m128i v = _mm_loadu_si128((const __m128i *)q);
    const __m128i d = _mm_sub_epi8(v, _mm_set1_epi8('0'));
    // A byte is a digit when its value minus '0' is at most 9 (unsigned).
    const __m128i is_digit = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
    const unsigned digits = (unsigned)_mm_movemask_epi8(is_digit);
    const unsigned dots = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('.')));
    const unsigned first_dot = dots & (0u - dots);
    // The first byte past the sign that is neither a digit nor the first point (16 when there
    // is none: the complement has bit 16 set). A second point ends the number there.
    const unsigned end = (unsigned)__builtin_ctz(~(digits | first_dot | negative));
    // Declined: no digit just before the end (no digit at all, or a point without a digit
    // after it), or no end within the 16 bytes (bit 16 is cleared).
    if (__builtin_expect(!(((digits << 1) & 0xFFFF) >> end & 1), 0)) return 0;
    if (end == 0) __builtin_unreachable();                              // a digit is before it
    // The point's place, or the last digit's without one (a point after the end is later).
    const unsigned shape = end * 16 + (unsigned)__builtin_ctz(first_dot | 1u << (end - 1));

    // The digits last in 16 lanes, zeros before (the sign and the point dropped).
    const __m128i lanes = _mm_shuffle_epi8(_mm_and_si128(d, is_digit), _mm_loadu_si128((const __m128i *)masks[shape]));
    // Pairs (10a + b), fours (100ab + cd), eights (10^4 abcd + efgh): two 8-digit halves.
    const __m128i pairs = _mm_maddubs_epi16(lanes, _mm_setr_epi8(10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1));
    const __m128i fours = _mm_madd_epi16(pairs, _mm_setr_epi16(100, 1, 100, 1, 100, 1, 100, 1));
    const __m128i eights = _mm_madd_epi16(_mm_packs_epi32(fours, fours),
                                          _mm_setr_epi16(10000, 1, 10000, 1, 10000, 1, 10000, 1));
    const uint64_t halves = (uint64_t)_mm_cvtsi128_si64(eights);
    const uint64_t m = (halves & 0xFFFFFFFFu) * 100000000u + (halves >> 32);   // below 10^15

    // Both operands exact, one correctly rounded division (by 1 for an integer).
    const double x = (double)(int64_t)m / scales[shape];
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    bits |= sign;                                                       // -0 for "-0"
    memcpy(value, &bits, sizeof bits);
    return end;
}

// geofence_plain_decimals for a constant count: the numbers one after the other, unrolled.
__attribute__((target("ssse3"), always_inline)) static inline int run(const unsigned char *p, int count,
                                                                       unsigned char delimiter, double *values) {
    unsigned i = 0;
#pragma clang loop unroll(full)
    for (int n = 0; n < count; n++) {
        const unsigned length = number(p + i, values + n);
        if (length == 0) return 0;
        i += length;
        if (n == count - 1) break;
        if (p[i] != delimiter) return 0;
        i += 1;
    }
    return (int)i;
}

__attribute__((target("ssse3"))) static int decimals(const unsigned char *p, int count, unsigned char delimiter,
                                                     double *values) {
    switch (count) {
    case 1: return run(p, 1, delimiter, values);
    case 2: return run(p, 2, delimiter, values);
    case 3: return run(p, 3, delimiter, values);
    default: return run(p, 4, delimiter, values);
    }
}

// The bounds of a run of N numbers from its masks, as run512 and run256 check them: G digits,
// P points, M '-', D delimiters of the 16 * N bytes at the run's start (no bit at or past
// 16 * N). Fills each number's start, shape (masks/scales entry) and sign bit; returns the
// offset past the last number, or 0 where geofence_plain_decimals declines the run.
__attribute__((always_inline)) static inline unsigned bounds(const uint64_t G, const uint64_t P, const uint64_t M,
                                                              const uint64_t D, const int N, unsigned starts[4],
                                                              unsigned shapes[4], uint64_t signs[4]) {
    const unsigned width = 16u * (unsigned)N;
    // Starts: 0, then after each of the first N - 1 delimiters (64: none, refused below).
    unsigned ends[4] = {0, 0, 0, 0};
    starts[0] = 0;
    uint64_t rest = D;
#pragma clang loop unroll(full)
    for (int k = 0; k < N - 1; k++) {
        const unsigned at = rest ? (unsigned)__builtin_ctzll(rest) : 63;
        rest &= rest - 1;
        ends[k] = at;
        starts[k + 1] = at + 1;
    }
    // The last number ends at the first byte from its start (past its sign) that is neither a
    // digit nor its first point.
    // (64 when a delimiter is missing: refused below by their count; no shift by 64 meanwhile.)
    const unsigned s = starts[N - 1], sl = s + ((unsigned)(M >> (s & 63)) & 1);
    const uint64_t from = sl < 64 ? ~(uint64_t)0 << sl : 0;
    const uint64_t dot = P & from & (0 - (P & from));
    const uint64_t stop = ~(G | dot) & from;
    const unsigned e = stop ? (unsigned)__builtin_ctzll(stop) : 64;
    ends[N - 1] = e;
    // Everything below e (e < width: the byte after the last number was read).
    const uint64_t below = e < 64 ? ((uint64_t)1 << e) - 1 : ~(uint64_t)0;
    const uint64_t delims = D & below;
    const uint64_t fieldStarts = 1 | (delims << 1);
    // Bytes just before each delimiter and the last one: digits.
    const uint64_t lasts = (delims >> 1) | ((uint64_t)1 << ((e - 1) & 63));
    uint64_t bad = (below & ~(G | P | M | D)) | (M & below & ~fieldStarts) | (lasts & ~G) | (D & 1);
    unsigned ok = (e < width) & (e > sl) & ((unsigned)__builtin_popcountll(delims) == (unsigned)(N - 1));
#pragma clang loop unroll(full)
    for (int k = 0; k < N; k++) {
        const unsigned b = starts[k], end = ends[k];
        // The field's bytes b ..< end, its points: one at most.
        const uint64_t field = (end < 64 ? ((uint64_t)1 << end) - 1 : ~(uint64_t)0) & (~(uint64_t)0 << (b & 63));
        const uint64_t points = P & field;
        bad |= points & (points - 1);
        ok &= end - b <= 15;
        const unsigned point = (unsigned)__builtin_ctzll(points | (uint64_t)1 << ((end - 1) & 63));
        shapes[k] = ((end - b) & 15) * 16 + ((point - b) & 15);
        signs[k] = ((M >> (b & 63)) & 1) << 63;
    }
    return ok && !bad ? e : 0;
}

// The wide paths' end: the run's N mantissas (exact doubles, lanes 0 to N - 1) over their
// powers of ten, correctly rounded, their signs set, and stored, one 8-byte store per value
// rather than a masked store: the caller reads each value back at once, and a load is forwarded
// from a store of its own size, where after a masked store it may wait for the store to reach
// the cache.
//
// The quotient m / 10^k without a division: m times the inverse as high + low, the product's
// rounding error kept by an FMA, so that the sum before the last rounding is within 2^-104 of
// m / 10^k (relative), while m / 10^k (m below 10^15, k at most 14) is never within 2^-86 of a
// point halfway between two doubles: the last rounding goes the way the division's would, the
// same bits (the argument in docs/logs.md, "Numbers"). The run routine alone over the AIS trace,
// on a Zen 4 host: 18 ns a row either way in its fast spells, but in a slow one 26 ns with the
// division against 20-21 with these products; the whole `geofence evaluate` of the trace with
// one fence at one thread 0.934 and 0.969 of the CPU (30 runs each, in turn).
__attribute__((target("avx,fma"), always_inline)) static inline __m256d quotients(const __m256d mantissa, const __m256d high,
                                                                                  const __m256d low) {
    const __m256d product = _mm256_mul_pd(mantissa, high);
    const __m256d error = _mm256_fmsub_pd(mantissa, high, product);          // exact
    return _mm256_add_pd(product, _mm256_fmadd_pd(mantissa, low, error));
}

// The quotients x (quotients()) with their signs set, stored.
__attribute__((target("avx,fma"), always_inline)) static inline void store_signed(const __m256d x, const __m256i sign, const int N,
                                                                                   double *values) {
    const __m256d signed_x = _mm256_or_pd(x, _mm256_castsi256_pd(sign));
    const __m128d first = _mm256_castpd256_pd128(signed_x);
    _mm_storel_pd(values, first);
    if (N > 1) _mm_storeh_pd(values + 1, first);
    if (N > 2) {
        const __m128d second = _mm256_extractf128_pd(signed_x, 1);
        _mm_storel_pd(values + 2, second);
        if (N > 3) _mm_storeh_pd(values + 3, second);
    }
}

// quotients() stored with their signs.
__attribute__((target("avx,fma"), always_inline)) static inline void store_quotients_of(const __m256d mantissa, const __m256d high,
                                                                                         const __m256d low, const __m256i sign,
                                                                                         const int N, double *values) {
    store_signed(quotients(mantissa, high, low), sign, N, values);
}

// store_quotients_of() with each value's inverse power of ten and sign from its shape and sign.
__attribute__((target("avx,fma"), always_inline)) static inline void store_quotients(const __m256d mantissa, const unsigned shapes[4],
                                                                                      const uint64_t signs[4], const int N, double *values) {
    const __m256d high = _mm256_setr_pd(inverse_high[shapes[0]], inverse_high[shapes[1]], inverse_high[shapes[2]], inverse_high[shapes[3]]);
    const __m256d low = _mm256_setr_pd(inverse_low[shapes[0]], inverse_low[shapes[1]], inverse_low[shapes[2]], inverse_low[shapes[3]]);
    const __m256i sign = _mm256_setr_epi64x((long long)signs[0], (long long)signs[1], (long long)signs[2], (long long)signs[3]);
    store_quotients_of(mantissa, high, low, sign, N, values);
}

// The AVX2 path: as the AVX-512 path below (the masks of the row's 16 * N bytes, the bounds
// checked together by bounds(), the numbers converted side by side, their quotients in one
// register: store_quotients()), with 32-byte compares (16 * N bytes read, no more: for three
// numbers, bytes 0-31 and 16-47) and two numbers per 256-bit register, one per 128-bit lane.
#define AVX2 __attribute__((target("avx2,bmi,popcnt,fma"), always_inline)) static inline
// The digit, point, '-' and delimiter masks of the 32 bytes at q.
AVX2 void masks256(const unsigned char *q, unsigned char delimiter, uint64_t *g, uint64_t *pt, uint64_t *m, uint64_t *dl) {
    const __m256i v = _mm256_loadu_si256((const __m256i *)q);
    const __m256i d = _mm256_sub_epi8(v, _mm256_set1_epi8('0'));
    *g = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(d, _mm256_set1_epi8(9)), d));
    *pt = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('.')));
    *m = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('-')));
    *dl = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8((char)delimiter)));
}

// Two numbers' 16 bytes (one per 128-bit lane) and their shuffle masks to their values m
// (below 10^15), in 64-bit elements 0 and 2 (1 and 3 hold the same).
AVX2 __m256i mantissas256(const __m256i bytes, const __m256i shuffle) {
    const __m256i digits = _mm256_sub_epi8(bytes, _mm256_set1_epi8('0'));
    const __m256i only = _mm256_and_si256(digits, _mm256_cmpeq_epi8(_mm256_min_epu8(digits, _mm256_set1_epi8(9)), digits));
    const __m256i lanes = _mm256_shuffle_epi8(only, shuffle);
    const __m256i pairs = _mm256_maddubs_epi16(lanes, _mm256_set1_epi16(0x010A));             // 10a + b
    const __m256i fours = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x00010064));             // 100ab + cd
    const __m256i eights = _mm256_madd_epi16(_mm256_packs_epi32(fours, fours), _mm256_set1_epi32(0x00012710));
    // The high 8 digits in each element's low half, the low 8 in its high half.
    return _mm256_add_epi64(_mm256_mul_epu32(eights, _mm256_set1_epi64x(100000000)), _mm256_srli_epi64(eights, 32));
}

// The N (2 to 4) numbers of a run whose bounds are checked (bounds()), from their starts in p,
// two per 256-bit register, converted as number() converts one (the same bits).
AVX2 void convert256(const unsigned char *p, const int N, const unsigned starts[4], const unsigned shapes[4],
                     const uint64_t signs[4], double *values) {
    // Numbers 0 and 1 in one register, 2 and 3 in another (for three, the fourth lane a copy
    // of number 0's, converted and dropped). Every number before k is 15 bytes or fewer with its sign,
    // so number k starts at 16 k or before and its 16 bytes lie within the 16 * N.
    const unsigned fourth = N > 3 ? 3 : 0;
    const __m256i first = mantissas256(
        _mm256_loadu2_m128i((const __m128i *)(p + starts[1]), (const __m128i *)(p + starts[0])),
        _mm256_loadu2_m128i((const __m128i *)masks[shapes[1]], (const __m128i *)masks[shapes[0]]));
    __m256i each;
    if (N > 2) {
        const __m256i last = mantissas256(
            _mm256_loadu2_m128i((const __m128i *)(p + starts[fourth]), (const __m128i *)(p + starts[2])),
            _mm256_loadu2_m128i((const __m128i *)masks[shapes[fourth]], (const __m128i *)masks[shapes[2]]));
        // [m0, m2, m1, m3] (elements 1 and 3 from the second register), then in order.
        each = _mm256_permute4x64_epi64(_mm256_blend_epi32(first, last, 0xCC), 0xD8);
    } else {
        each = _mm256_permute4x64_epi64(first, 0xD8);                      // [m0, m1, ...]
    }
    // m below 2^52: its double is exact as the bits of 2^52 + m less 2^52.
    const __m256d magic = _mm256_set1_pd(4503599627370496.0);
    const __m256d mantissa = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(each, _mm256_castpd_si256(magic))), magic);
    store_quotients(mantissa, shapes, signs, N, values);
}

// For 2 to 4 numbers (one alone has nothing to wait for: decimals256 gives it to run()).
AVX2 int run256(const unsigned char *p, const int N, unsigned char delimiter, double *values) {
    uint64_t G, P, M, D;
    masks256(p, delimiter, &G, &P, &M, &D);
    if (N > 2) {
        // Bytes 16-47 (three numbers) or 32-63 (four): the same bits where they overlap.
        const unsigned shift = N == 3 ? 16 : 32;
        uint64_t g, pt, m, dl;
        masks256(p + shift, delimiter, &g, &pt, &m, &dl);
        G |= g << shift;
        P |= pt << shift;
        M |= m << shift;
        D |= dl << shift;
    }
    unsigned starts[4] = {0, 0, 0, 0}, shapes[4] = {0, 0, 0, 0};
    uint64_t signs[4] = {0, 0, 0, 0};
    const unsigned e = bounds(G, P, M, D, N, starts, shapes, signs);
    if (e == 0) return 0;

    convert256(p, N, starts, shapes, signs, values);
    return (int)e;
}

__attribute__((target("avx2,bmi,popcnt,fma"))) static int decimals256(const unsigned char *p, int count, unsigned char delimiter,
                                                          double *values) {
    // A delimiter that can be part of a number is left to the one-at-a-time path.
    if (delimiter == '-' || delimiter == '.' || (delimiter >= '0' && delimiter <= '9')) return decimals(p, count, delimiter, values);
    switch (count) {
    case 1: return run(p, 1, delimiter, values);
    case 2: return run256(p, 2, delimiter, values);
    case 3: return run256(p, 3, delimiter, values);
    default: return run256(p, 4, delimiter, values);
    }
}

// The AVX-512 path: the masks of the row's 16 * N bytes (digits, points, '-', delimiters) in
// one compare each, the numbers' bounds checked together from them by bit arithmetic (no number
// waits for the one before it: they start after the first N - 1 delimiters, the last ends where
// number() would end it; then every byte before that end must be a digit, a point, a
// delimiter or a '-' that starts a number, each number must end with a digit and hold one point
// at most, 15 bytes at most with its sign), then the N numbers converted side by side, one per
// 128-bit lane, as number() converts one (the same shuffle masks and multiply-adds, the
// quotients by store_quotients(): the same bits). Checking the bounds together rather than
// number by number took a one-thread read of the 1M-row scattered log × 10k circles from 75.8 to
// 72.7 ms of CPU (25 runs of each in turn, medians).
#define AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,bmi,popcnt,fma"), always_inline)) static inline
// The mantissas (exact doubles) of four numbers, one per 128-bit lane: each lane's 16 bytes
// and the shuffle mask of its number's shape (masks[]), as number() makes them.
AVX512 __m256d mantissas512(const __m512i bytes, const __m512i shuffle) {
    const __m512i digits = _mm512_sub_epi8(bytes, _mm512_set1_epi8('0'));
    const __m512i only = _mm512_maskz_mov_epi8(_mm512_cmple_epu8_mask(digits, _mm512_set1_epi8(9)), digits);
    const __m512i lanes = _mm512_shuffle_epi8(only, shuffle);
    const __m512i pairs = _mm512_maddubs_epi16(lanes, _mm512_set1_epi16(0x010A));          // 10a + b
    const __m512i fours = _mm512_madd_epi16(pairs, _mm512_set1_epi32(0x00010064));          // 100ab + cd
    const __m512i eights = _mm512_madd_epi16(_mm512_packs_epi32(fours, fours), _mm512_set1_epi32(0x00012710));
    // Each lane's low 64 bits: the high 8 digits, then the low 8; m = high * 10^8 + low.
    const __m512i m = _mm512_add_epi64(_mm512_mul_epu32(eights, _mm512_set1_epi64(100000000)),
                                       _mm512_srli_epi64(eights, 32));
    const __m256i each = _mm512_castsi512_si256(_mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 0, 2, 4, 6), m));
    return _mm256_cvtepi64_pd(each);
}

// N numbers (1 to 4) whose bounds are checked (bounds()), the k-th at q[k] (16 bytes readable),
// one per 128-bit lane, converted as number() converts one: the same shuffle masks and
// multiply-adds, the quotients by store_quotients(), so the same bits.
AVX512 void convert512_at(const unsigned char *const q[4], const int N, const unsigned shapes[4], const uint64_t signs[4],
                          double *values) {
    // Lane k: the 16 bytes of number k and its shuffle mask (lanes past N: copies of lane 0,
    // converted and dropped).
    __m512i bytes = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)q[0]));
    __m512i shuffle = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)masks[shapes[0]]));
    if (N > 1) {
        bytes = _mm512_inserti32x4(bytes, _mm_loadu_si128((const __m128i *)q[1]), 1);
        shuffle = _mm512_inserti32x4(shuffle, _mm_loadu_si128((const __m128i *)masks[shapes[1]]), 1);
    }
    if (N > 2) {
        bytes = _mm512_inserti32x4(bytes, _mm_loadu_si128((const __m128i *)q[2]), 2);
        shuffle = _mm512_inserti32x4(shuffle, _mm_loadu_si128((const __m128i *)masks[shapes[2]]), 2);
    }
    if (N > 3) {
        bytes = _mm512_inserti32x4(bytes, _mm_loadu_si128((const __m128i *)q[3]), 3);
        shuffle = _mm512_inserti32x4(shuffle, _mm_loadu_si128((const __m128i *)masks[shapes[3]]), 3);
    }
    store_quotients(mantissas512(bytes, shuffle), shapes, signs, N, values);
}

// The N numbers of a run whose bounds are checked (bounds()), from their starts in p
// (convert512_at). Every number before k is 15 bytes or fewer with its sign, so number k starts
// at 16 k or before and its 16 bytes lie within the 16 * N.
AVX512 void convert512(const unsigned char *p, const int N, const unsigned starts[4], const unsigned shapes[4],
                       const uint64_t signs[4], double *values) {
    const unsigned char *const q[4] = {p + starts[0], p + starts[N > 1 ? 1 : 0], p + starts[N > 2 ? 2 : 0],
                                       p + starts[N > 3 ? 3 : 0]};
    convert512_at(q, N, shapes, signs, values);
}

AVX512 int run512(const unsigned char *p, const int N, unsigned char delimiter, double *values) {
    const unsigned width = 16u * (unsigned)N;
    const __mmask64 readable = width == 64 ? ~(__mmask64)0 : ((__mmask64)1 << width) - 1;
    const __m512i v = _mm512_maskz_loadu_epi8(readable, p);                // no byte past 16 * N read
    const __m512i d = _mm512_sub_epi8(v, _mm512_set1_epi8('0'));
    const uint64_t G = _cvtmask64_u64(_mm512_mask_cmple_epu8_mask(readable, d, _mm512_set1_epi8(9)));
    // (Only the bytes read: a zero lane past them is not a delimiter '\0'.)
    const uint64_t P = _cvtmask64_u64(_mm512_mask_cmpeq_epi8_mask(readable, v, _mm512_set1_epi8('.')));
    const uint64_t M = _cvtmask64_u64(_mm512_mask_cmpeq_epi8_mask(readable, v, _mm512_set1_epi8('-')));
    const uint64_t D = _cvtmask64_u64(_mm512_mask_cmpeq_epi8_mask(readable, v, _mm512_set1_epi8((char)delimiter)));

    unsigned starts[4] = {0, 0, 0, 0}, shapes[4] = {0, 0, 0, 0};
    uint64_t signs[4] = {0, 0, 0, 0};
    const unsigned e = bounds(G, P, M, D, N, starts, shapes, signs);
    if (e == 0) return 0;

    convert512(p, N, starts, shapes, signs, values);
    return (int)e;
}

__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,bmi,popcnt,fma"))) static int decimals512(const unsigned char *p, int count,
                                                                                      unsigned char delimiter, double *values) {
    // A delimiter that can be part of a number is left to the one-at-a-time path.
    if (delimiter == '-' || delimiter == '.' || (delimiter >= '0' && delimiter <= '9')) return decimals(p, count, delimiter, values);
    switch (count) {
    case 1: return run512(p, 1, delimiter, values);
    // Two numbers (a trace's lat and lon) in 256-bit registers: on a CPU that splits 512-bit
    // operations in two (AMD Zen 4), the 512-bit conversion of two numbers was the slower
    // (docs/logs.md, "Row blocks").
    case 2: return run256(p, 2, delimiter, values);
    case 3: return run512(p, 3, delimiter, values);
    default: return run512(p, 4, delimiter, values);
    }
}

// The row blocks (geofence_standard_rows): the masks of the 64 bytes at a row's start, G digits,
// P points, M '-', D delimiters, N '\n', S bytes a device name read here must not hold (any
// byte outside '!' to '~', and '"').
typedef struct {
    uint64_t G, P, M, D, N, S;
} row_masks;

AVX512 row_masks row_masks512(const unsigned char *p, unsigned char delimiter) {
    const __m512i v = _mm512_loadu_si512((const void *)p);
    row_masks m;
    m.G = _cvtmask64_u64(_mm512_cmple_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8('0')), _mm512_set1_epi8(9)));
    m.P = _cvtmask64_u64(_mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('.')));
    m.M = _cvtmask64_u64(_mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('-')));
    m.D = _cvtmask64_u64(_mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8((char)delimiter)));
    m.N = _cvtmask64_u64(_mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\n')));
    // Unsigned: below '!' or from 0x80 on; and '"'.
    m.S = _cvtmask64_u64(_mm512_cmple_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8('!')), _mm512_set1_epi8(0x5D)));
    m.S = ~m.S | _cvtmask64_u64(_mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"')));
    return m;
}

// The '\n' and name-stopping masks of the 32 bytes at q (row_masks256).
AVX2 void stops256(const unsigned char *q, uint64_t *n, uint64_t *s) {
    const __m256i v = _mm256_loadu_si256((const __m256i *)q);
    *n = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n')));
    // '!' to '~' (0x21 to 0x7E) minus '!' is at most 0x5D; anything else is a stop, as is '"'.
    const __m256i d = _mm256_sub_epi8(v, _mm256_set1_epi8('!'));
    const __m256i printable = _mm256_cmpeq_epi8(_mm256_min_epu8(d, _mm256_set1_epi8(0x5D)), d);
    *s = (uint32_t)~_mm256_movemask_epi8(_mm256_andnot_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"')), printable));
}

AVX2 row_masks row_masks256(const unsigned char *p, unsigned char delimiter) {
    row_masks m;
    uint64_t g, pt, mi, dl, n, st;
    masks256(p, delimiter, &m.G, &m.P, &m.M, &m.D);
    masks256(p + 32, delimiter, &g, &pt, &mi, &dl);
    m.G |= g << 32;
    m.P |= pt << 32;
    m.M |= mi << 32;
    m.D |= dl << 32;
    stops256(p, &m.N, &m.S);
    stops256(p + 32, &n, &st);
    m.N |= n << 32;
    m.S |= st << 32;
    return m;
}

// The 64×64 → 128-bit product's halves folded (DeviceState's hash step).
static inline uint64_t fold(const uint64_t a, const uint64_t b) {
    const unsigned __int128 r = (unsigned __int128)a * b;
    return (uint64_t)(r >> 64) ^ (uint64_t)r;
}

// Whether the numbers ending at `end` end the row whose '\n' is at nl.
static inline int row_end(const unsigned char *p, const unsigned end, const unsigned nl) {
    return end == nl || (end + 1 == nl && p[end] == '\r');
}

// The layout of a row's numbers as bounds() found it, kept from one row of a block to the
// next: its masks from the first number on (cut to the 16 * N bytes bounds() reads and to the
// row's line feed) and N, and what bounds() made of them. bounds() depends on nothing else, so
// a row whose masks are the same (the usual case in a trace: numbers of the same lengths, signs
// and points) takes its results without running it again.
typedef struct {
    uint64_t G, P, M, D;
    int N;
    unsigned e, starts[4], shapes[4];
    uint64_t signs[4];
} numbers_layout;

// The layouts a thread has met in the row blocks' rows (geofence_standard_rows), for its whole
// life: a row of a log whose numbers' lengths and signs change from row to row (points spread
// over the world, one device after another) seldom has the layout of the row before it, and
// bounds() ran for 95 % of the scattered log's rows; from this table, for 4 % (docs/logs.md,
// "Row blocks"). An entry is chosen by its masks' points, signs and delimiters and taken only
// when all its masks and N are the row's: bounds() depends on nothing else. Entries start
// empty (N 0, which no row has).
#define NUMBER_LAYOUTS 256
static _Thread_local numbers_layout number_layouts[NUMBER_LAYOUTS];

// The table entry for the masks P, M, D (the top bits of a multiplicative hash).
static inline numbers_layout *number_layout_entry(const uint64_t P, const uint64_t M, const uint64_t D) {
    const uint64_t h = (D * 0x9E3779B97F4A7C15u) ^ (P * 0xC2B2AE3D27D4EB4Fu) ^ (M * 0x165667B19E3779F9u);
    return number_layouts + (h >> 56);
}

// The numbers of a row from `first` on, N of them, checked by bounds() from the row's masks
// (or taken from the layout kept when they are the same) and ending the row: the layout kept,
// which now holds theirs (the offset from `first` past the last in e; their starts, shapes and
// signs), or NULL. The layout kept is `layout` (the row before it), or with `table`,
// number_layouts' entry for the row's masks.
AVX2 const numbers_layout *row_layout(const row_masks m, const unsigned char *p, const unsigned first, const int N,
                                      const unsigned nl, numbers_layout *layout, const int table) {
    // The masks from the first number on, cut to its 16 * N bytes as bounds() needs them, and
    // to the row (the next row's bytes would only make rows of one layout look different:
    // bounds() ends the last number at the row's '\n' at the latest, and a row whose N - 1
    // delimiters are not all before it is refused either way).
    const uint64_t width = (N == 4 ? ~(uint64_t)0 : ((uint64_t)1 << (16 * N)) - 1) & (((uint64_t)1 << (nl - first)) - 1);
    const uint64_t G = (m.G >> first) & width, P = (m.P >> first) & width, M = (m.M >> first) & width,
                   D = (m.D >> first) & width;
    if (table) layout = number_layout_entry(P, M, D);
    if (G != layout->G || P != layout->P || M != layout->M || D != layout->D || N != layout->N) {
        unsigned starts[4] = {0, 0, 0, 0}, shapes[4] = {0, 0, 0, 0};
        uint64_t signs[4] = {0, 0, 0, 0};
        const unsigned e = bounds(G, P, M, D, N, starts, shapes, signs);
        if (e == 0) return NULL;
        *layout = (numbers_layout){G, P, M, D, N, e, {starts[0], starts[1], starts[2], starts[3]},
                                   {shapes[0], shapes[1], shapes[2], shapes[3]}, {signs[0], signs[1], signs[2], signs[3]}};
    }
    return row_end(p, first + layout->e, nl) ? layout : NULL;
}

// The numbers of a row from `first` on as row_layout() checks them, converted into values: the
// offset from `first` past the last, or 0.
AVX2 unsigned row_numbers(const row_masks m, const unsigned char *p, const unsigned first, const int N, const unsigned nl,
                          numbers_layout *layout, const int table, double *values) {
    const numbers_layout *const l = row_layout(m, p, first, N, nl, layout, table);
    if (l == NULL) return 0;
    convert256(p + first, N, l->starts, l->shapes, l->signs, values);
    return l->e;
}

// The seconds since midnight of the clock `hh:mm:ss` in the 8 bytes `time` (its six digits
// digits, checked by the caller; the colons' lanes are read as '0'), each digit times ten plus
// the next (hours, minutes, seconds in lanes 0, 3 and 6); -1 when the hour, minute or second is
// out of range (a leap second 60 taken), as LogTime.parseUTCSeconds checks them.
static inline int clock_seconds(const uint64_t time) {
    const uint64_t dd = ((time & 0xFFFF00FFFF00FFFFu) | 0x0000300000300000u) - 0x3030303030303030u;
    const uint64_t pairs = dd * 10 + (dd >> 8);
    const unsigned hour = pairs & 0xFF, minute = (pairs >> 24) & 0xFF, second = (pairs >> 48) & 0xFF;
    return hour > 23 || minute > 59 || second > 60 ? -1 : (int)(hour * 3600 + minute * 60 + second);
}

// Whether a row's position is in range: v its latitude, longitude and (with `accuracy`) accuracy.
static inline int position_in_range(const double *v, const int accuracy) {
    return v[0] >= -90 && v[0] <= 90 && v[1] >= -180 && v[1] <= 180 && (!accuracy || v[2] >= 0);
}

// The rest of a row whose device (1 byte or more) ends at d0, before its '\n' at nl: when the
// byte 5 after the device's delimiter is '-', a time `YYYY-MM-DDThh:mm:ssZ` ('T', 't' or ' ';
// 'Z' or 'z') ended by a delimiter, its separators and clock checked as LogTime.parseUTCSeconds
// checks them (a leap second 60 taken), its date the one given; then the plain numbers as
// bounds() checks them, the last ending the row at its '\n' (or a '\r' before it); lat within
// [-90, 90], lon within [-180, 180], accuracy at least 0. Sets *clock (an ISO time's seconds
// since midnight; -1: the time is numbers[0]) and the numbers. Returns the offset of the next
// row; 0 for a row this path does not read; -1 when the time's date differs from the one given,
// its separators and clock checked but the rest of the row not yet.
AVX2 int row_rest(const row_masks m, const unsigned char *p, const unsigned d0, const unsigned nl, int accuracy,
                  unsigned char delimiter, uint64_t day_head, uint16_t day_tail, numbers_layout *layout, const int table,
                  int *clock, double *numbers) {
    unsigned first;
    int count;
    if (p[d0 + 5] == '-') {
        const unsigned char *t = p + d0 + 1;
        if (t[20] != delimiter) return 0;
        uint64_t head, middle, last, time;
        uint16_t tail;
        memcpy(&head, t, 8);
        memcpy(&middle, t + 8, 8);
        memcpy(&last, t + 12, 8);
        memcpy(&tail, t + 8, 2);
        memcpy(&time, t + 11, 8);
        if ((head & 0xFF0000FF00000000u) != 0x2D00002D00000000u || (middle & 0x0000FF0000000000u) != 0x00003A0000000000u
            || ((last | 0x2000000000000000u) & 0xFF0000FF00000000u) != 0x7A00003A00000000u)
            return 0;
        const unsigned separator = (unsigned)(middle >> 16) & 0xFF;
        if ((separator | 0x20) != 0x74 && separator != 0x20) return 0;
        // hh:mm:ss as one word, the colons' lanes set to '0': every lane a digit.
        const uint64_t c = (time & 0xFFFF00FFFF00FFFFu) | 0x0000300000300000u;
        if (((c - 0x3030303030303030u) | (c + 0x4646464646464646u)) & 0x8080808080808080u) return 0;
        const int seconds = clock_seconds(time);
        if (seconds < 0) return 0;
        if (head != day_head || tail != day_tail) return -1;
        *clock = seconds;
        first = d0 + 22;
        count = 2 + accuracy;
    } else {
        *clock = -1;
        first = d0 + 1;
        count = 3 + accuracy;
    }
    if (first >= nl) return 0;
    // N constant in each call, for bounds()'s unrolled loops.
    const unsigned e = count == 2 ? row_numbers(m, p, first, 2, nl, layout, table, numbers)
                     : count == 3 ? row_numbers(m, p, first, 3, nl, layout, table, numbers)
                                  : row_numbers(m, p, first, 4, nl, layout, table, numbers);
    if (e == 0) return 0;
    if (!position_in_range(numbers + (*clock < 0), accuracy)) return 0;
    return (int)nl + 1;
}

// A row from the masks of its 64 bytes (the whole row with its '\n' within them): the device
// (1 byte or more, none of S's, ended by the first delimiter) and its key as DeviceState makes
// it (the name's last 1 to 8 bytes as the tail, the hash folded over the whole words before it,
// then the length and the tail), then the rest as row_rest() reads it. Returns the offset of the
// next row; 0 for a row this path does not read; -1 when the time's date differs from the one
// given (row->device_end set: the caller converts the date, then reads the row again).
// The numbers are converted in 256-bit registers at both levels: on AMD Zen 4, which splits a
// 512-bit operation in two, the 512-bit conversion of a row's four numbers was the slower
// (docs/logs.md, "Row blocks").
AVX2 int row_read(const row_masks m, const unsigned char *p, int accuracy, unsigned char delimiter, uint64_t day_head,
                  uint16_t day_tail, numbers_layout *layout, geofence_row *row) {
    if (m.N == 0 || m.D == 0) return 0;
    const unsigned nl = (unsigned)__builtin_ctzll(m.N);
    const unsigned d0 = (unsigned)__builtin_ctzll(m.D);
    if (d0 == 0 || d0 >= nl || (m.S & (((uint64_t)1 << d0) - 1))) return 0;
    row->device_end = (int)d0;
    const int next = row_rest(m, p, d0, nl, accuracy, delimiter, day_head, day_tail, layout, 1, &row->clock, row->numbers);
    if (next <= 0) return next;
    const unsigned last_word = (d0 - 1) & ~7u, rest = d0 - last_word;
    uint64_t word, h = 0x9E3779B97F4A7C15u ^ (uint64_t)d0;
    for (unsigned i = 0; i < last_word; i += 8) {
        memcpy(&word, p + i, 8);
        h = fold(h ^ word, 0xA0761D6478BD642Fu);
    }
    memcpy(&word, p + last_word, 8);
    row->tail = word & (~(uint64_t)0 >> (64 - 8 * rest));
    row->hash = fold(h ^ 0xE7037ED1A0B428DBu, row->tail ^ 0x8EBC6AF09C88C6E3u);
    row->next = next;
    return next;
}

// Whether the n bytes (1 or more) at a and b are the same (8 more readable after each).
static inline int same_bytes(const unsigned char *a, const unsigned char *b, const unsigned n) {
    uint64_t x, y;
    unsigned i = 0;
    for (; i + 8 < n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) return 0;
    }
    memcpy(&x, a + i, 8);
    memcpy(&y, b + i, 8);
    return ((x ^ y) & (~(uint64_t)0 >> (64 - 8 * (n - i)))) == 0;
}

// A run's row read, at time t: taken when t is within the run's range and (with run->order)
// follows the run's last fix (DeviceState.follows: later, or the same time elsewhere); its fix
// then written to *fix and made the run's last. Returns 1 when taken, 0 when the row ends the run.
static inline int run_take(geofence_run *run, geofence_fix *fix, const double t, const double lat, const double lon,
                           const double a) {
    if (!(t >= run->earliest && t <= run->latest)) return 0;
    if (run->order && !(t > run->time || (t == run->time && (lat != run->lat || lon != run->lon)))) return 0;
    run->time = t;
    run->lat = lat;
    run->lon = lon;
    fix->device = run->device;
    fix->offset = 0;
    fix->time = t;
    fix->lat = lat;
    fix->lon = lon;
    fix->accuracy = a;
    return 1;
}

// A row of a run (geofence_run_rows): its device the run's name, then the rest as row_rest()
// reads it, its time in the range and (with run->order) following the run's last fix; its fix
// written to *fix and made the run's last. Returns the offset of the next row, or 0 for a row
// that ends the run (a new date too: the caller's row blocks convert it).
AVX2 int run_read(const row_masks m, const unsigned char *p, int accuracy, unsigned char delimiter, uint64_t day_head,
                  uint16_t day_tail, numbers_layout *layout, geofence_run *run, geofence_fix *fix) {
    if (m.N == 0 || m.D == 0) return 0;
    const unsigned nl = (unsigned)__builtin_ctzll(m.N);
    const unsigned d0 = (unsigned)__builtin_ctzll(m.D);
    if (d0 != (unsigned)run->name_length || d0 >= nl || !same_bytes(p, run->name, d0)) return 0;
    int clock;
    double v[4];
    const int next = row_rest(m, p, d0, nl, accuracy, delimiter, day_head, day_tail, layout, 0, &clock, v);
    if (next <= 0) return 0;
    double t;
    const double *position = v;
    if (clock < 0) {
        if (run->per_second == 0) return 0;
        t = v[0] / run->per_second;
        position = v + 1;
    } else {
        t = run->day + (double)clock;
    }
    return run_take(run, fix, t, position[0], position[1], accuracy ? position[2] : 0) ? next : 0;
}

// A row of an ISO run checked against the row before it, the template (run_rows), up to its
// numbers' conversion: from the row's masks m and E, the bytes where it equals the template.
// Every byte before the first number but the clock's six digits must be the template's (tmask:
// the device, its delimiter, the date, the separators, the zone letter, the delimiter after the
// time), which make the checks row_rest() would make of them; the clock's digits must be digits,
// its hour, minute and second in range (*seconds since midnight; *nl the row's '\n'); then the
// numbers' bounds as row_layout() checks them (their starts, shapes and signs left in `layout`).
// Returns 1; 0 for a row that ends the run; -2 where the row differs from the template elsewhere
// than in the clock (run_read() then reads it: a lower-case 't' after an upper-case one, another
// device).
AVX2 int run_template_row(const row_masks m, const uint64_t E, const unsigned char *p, const uint64_t tmask,
                          const unsigned d0, int accuracy, numbers_layout *layout, int *seconds, unsigned *nl) {
    if ((E & tmask) != tmask) return -2;
    if (m.N == 0) return 0;
    *nl = (unsigned)__builtin_ctzll(m.N);
    const unsigned first = d0 + 22;
    if (first >= *nl) return 0;
    const uint64_t digits = (uint64_t)0xDB << (d0 + 12);
    if ((m.G & digits) != digits) return 0;
    uint64_t time;
    memcpy(&time, p + d0 + 12, 8);
    *seconds = clock_seconds(time);
    if (*seconds < 0) return 0;
    return (accuracy ? row_layout(m, p, first, 3, *nl, layout, 0) : row_layout(m, p, first, 2, *nl, layout, 0)) ? 1 : 0;
}

// A template row's fix taken from its clock's seconds and its converted numbers v (latitude,
// longitude, accuracy): its position in range, then run_take(). 1, or 0 when the row ends the run.
static inline int run_take_numbers(geofence_run *run, geofence_fix *fix, const int seconds, const double *v, const int accuracy) {
    return position_in_range(v, accuracy) && run_take(run, fix, run->day + (double)seconds, v[0], v[1], accuracy ? v[2] : 0);
}

// A template row's numbers (run_template_row()) converted and its fix taken (run_take_numbers()).
AVX2 int run_take_template(const unsigned char *p, const unsigned d0, int accuracy, const numbers_layout *layout,
                           const int seconds, geofence_run *run, geofence_fix *fix) {
    double v[4];
    // N constant in each call, for the conversion's unrolled lanes.
    if (accuracy) convert256(p + d0 + 22, 3, layout->starts, layout->shapes, layout->signs, v);
    else convert256(p + d0 + 22, 2, layout->starts, layout->shapes, layout->signs, v);
    return run_take_numbers(run, fix, seconds, v, accuracy);
}

// A row of an ISO run read against the template: run_template_row(), then run_take_template().
// Returns the offset of the next row, 0 for a row that ends the run, or -2 (run_template_row()).
AVX2 int run_read_template(const row_masks m, const uint64_t E, const unsigned char *p, const uint64_t tmask,
                           const unsigned d0, int accuracy, numbers_layout *layout, geofence_run *run, geofence_fix *fix) {
    int seconds;
    unsigned nl;
    const int r = run_template_row(m, E, p, tmask, d0, accuracy, layout, &seconds, &nl);
    if (r <= 0) return r;
    return run_take_template(p, d0, accuracy, layout, seconds, run, fix) ? (int)nl + 1 : 0;
}

// The template mask of a run (run_read_template): the row before the run at a (the run's name
// there) when it is an ISO row of the given date, its bytes before the first number but the
// clock's digits; 0 when it is not one (every row is then read by run_read()).
static inline uint64_t run_template(const unsigned char *a, const unsigned d0, unsigned char delimiter, uint64_t day_head,
                                    uint16_t day_tail) {
    if (d0 < 1 || d0 + 22 > 62 || a[d0] != delimiter) return 0;
    const unsigned char *t = a + d0 + 1;
    uint64_t head;
    uint16_t tail;
    memcpy(&head, t, 8);
    memcpy(&tail, t + 8, 2);
    const int iso = head == day_head && tail == day_tail && ((t[10] | 0x20) == 't' || t[10] == ' ') && t[13] == ':'
                    && t[16] == ':' && (t[19] | 0x20) == 'z' && t[20] == delimiter;
    return iso ? (((uint64_t)1 << (d0 + 22)) - 1) & ~((uint64_t)0xDB << (d0 + 12)) : 0;
}

// Whether the row routines read rows with this delimiter: not one that may be part of a number
// or a time, a line end or a quote.
static inline int row_delimiter(const unsigned char delimiter) {
    return !(delimiter == '-' || delimiter == '.' || (delimiter >= '0' && delimiter <= '9') || delimiter == '\n'
             || delimiter == '\r' || delimiter == '"');
}

// geofence_standard_rows at a level (`masks` its row_masks function): rows one after the other
// while they start at or before last_start.
#define ROWS(masks)                                                                                                    \
    if (!row_delimiter(delimiter)) return 0;                                                                           \
    long at = 0;                                                                                                       \
    int k = 0;                                                                                                         \
    numbers_layout layout = {0, 0, 0, 0, 0, 0, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};                              \
    *new_day = 0;                                                                                                      \
    while (k < max && at <= last_start) {                                                                              \
        const int next =                                                                                               \
            row_read(masks(p + at, delimiter), p + at, accuracy, delimiter, day_head, day_tail, &layout, rows + k);    \
        if (next <= 0) {                                                                                               \
            *new_day = next < 0;                                                                                       \
            break;                                                                                                     \
        }                                                                                                              \
        at += next;                                                                                                    \
        k++;                                                                                                           \
    }                                                                                                                  \
    return k;

__attribute__((target("avx2,bmi,popcnt,fma"))) static int rows256(const unsigned char *p, long last_start, int accuracy,
                                                             unsigned char delimiter, uint64_t day_head, uint16_t day_tail,
                                                             geofence_row *rows, int max, int *new_day) {
    ROWS(row_masks256)
}

__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,bmi,popcnt,fma"))) static int rows512(const unsigned char *p, long last_start,
                                                                                        int accuracy, unsigned char delimiter,
                                                                                        uint64_t day_head, uint16_t day_tail,
                                                                                        geofence_row *rows, int max, int *new_day) {
    ROWS(row_masks512)
}

// A row of the run taken (its fix in fixes[k]): its line noted, the run on at the row at `to`.
#define ROW_TAKEN(to)                                                                                                  \
    if (lines) lines[k] = run->line + 1 + k;                                                                           \
    last = at;                                                                                                         \
    at = (to);                                                                                                         \
    k++;

// Two template rows of a run without accuracy (RUN with `pair`, the AVX-512 level), a at p + at
// and the next: both checked (run_template_row()), their four numbers converted together in one
// 512-bit register (convert512_at(): a row's own conversion takes half of one), then each taken
// in turn as run_take_template() takes it: 0.95 of the one-row routine's time on the AIS trace
// where this host ran fast, the same where it ran slow (docs/logs.md, "Row blocks"). A row a
// that is not a template row goes on to the one-row path below; one that ends the run stops it;
// when b is not a template row (or not there), a alone is taken and b is read next.
#define PAIR_STEP(masks, same)                                                                                         \
    int sa, sb = 0;                                                                                                    \
    unsigned nla, nlb = 0;                                                                                             \
    const int ra = run_template_row(m, same(p + at), p + at, tmask, d0, 0, &layout, &sa, &nla);                        \
    if (ra == 0) {                                                                                                     \
        *stopped = 1;                                                                                                  \
        break;                                                                                                         \
    }                                                                                                                  \
    if (ra == 1) {                                                                                                     \
        /* Row a's numbers in lanes 0 and 1, row b's (or a's again) in 2 and 3. */                                     \
        const unsigned char *const a = p + at + d0 + 22;                                                               \
        const unsigned char *q[4] = {a + layout.starts[0], a + layout.starts[1], 0, 0};                                \
        unsigned shapes[4] = {layout.shapes[0], layout.shapes[1], 0, 0};                                               \
        uint64_t signs[4] = {layout.signs[0], layout.signs[1], 0, 0};                                                  \
        const long bt = at + (long)nla + 1;                                                                            \
        const int rb = bt <= last_start ? run_template_row(masks(p + bt, delimiter), same(p + bt), p + bt, tmask, d0,  \
                                                           0, &layout, &sb, &nlb)                                      \
                                        : 0;                                                                           \
        const int both = rb == 1;                                                                                      \
        const unsigned char *const b = p + bt + d0 + 22;                                                               \
        q[2] = both ? b + layout.starts[0] : q[0];                                                                     \
        q[3] = both ? b + layout.starts[1] : q[1];                                                                     \
        shapes[2] = both ? layout.shapes[0] : shapes[0];                                                               \
        shapes[3] = both ? layout.shapes[1] : shapes[1];                                                               \
        signs[2] = both ? layout.signs[0] : signs[0];                                                                  \
        signs[3] = both ? layout.signs[1] : signs[1];                                                                  \
        double v[4];                                                                                                   \
        convert512_at(q, 4, shapes, signs, v);                                                                         \
        if (!run_take_numbers(run, fixes + k, sa, v, 0)) {                                                             \
            *stopped = 1;                                                                                              \
            break;                                                                                                     \
        }                                                                                                              \
        ROW_TAKEN(bt)                                                                                                  \
        if (!both) continue;                                                                                           \
        if (!run_take_numbers(run, fixes + k, sb, v + 2, 0)) {                                                         \
            *stopped = 1;                                                                                              \
            break;                                                                                                     \
        }                                                                                                              \
        ROW_TAKEN(at + (long)nlb + 1)                                                                                  \
        continue;                                                                                                      \
    }

// A row's classes: its 64 bytes with every digit made '0'. Two rows with the same classes up
// to the first one's '\n' have digits, points, '-', delimiters, the line feed and every other
// byte in the same places, so every check of the pair step above but the digits' values and
// the bytes the template compare reads comes out the same for both (run_template_row(): the
// clock's digits, row_layout()'s masks and bounds, row_end()), and their numbers the same
// layout.
//
// A layout the block step keeps (BLOCK_STEP): the classes of a template row it checked in full
// (`classes`; the bytes up to its '\n' count), its two numbers' starts from the first, and
// what their conversion takes from their shapes and signs, made once: their shuffle masks
// (masks[], one per 128-bit lane), their inverse powers of ten as high and low parts, their
// sign bits.
typedef struct {
    _Alignas(64) unsigned char classes[64];
    __m256i shuffle;
    __m128d high, low;
    __m128i sign;
    unsigned starts[2];
} row_class;

// The layouts the block step keeps, per thread (a power of two), and the table (all zero at
// first: a zero entry matches no row, whose '\n' is not a zero byte). A row's entry is chosen
// by the places of its non-digit bytes, so the few layouts of a trace (the numbers' lengths,
// signs and points) each keep an entry of their own, from one call to the next and from one
// device to the next (a device's name is compared with the template apart from its classes).
// Both wide levels keep the same entries (what an entry holds does not depend on the level).
// On the AIS trace, with 32 entries, 0.4 % of the rows the step reads are checked in full
// (8, 16 and 32 entries per call rather than per thread: 7 %, 7 %, 4 %).
#define BLOCK_CLASSES 32
static _Thread_local row_class block_table[BLOCK_CLASSES];

// The entry of block_table for a row whose non-digit bytes, up to its '\n', are `other`.
static inline row_class *block_entry(const uint64_t other) {
    return block_table + ((other * 0x9E3779B97F4A7C15u) >> (64 - 5));
}

// A template row of a run without accuracy at q (its '\n' at nl, below 64) whose classes are
// not kept, checked in full as run_template_row() checks it with two numbers, from its masks
// (G digits, P points, M '-', D delimiters; template_ok: its bytes before the numbers are the
// template's where tmask says; seconds its clock's, -1 out of range): its numbers' starts,
// shapes and signs; 0 where it does not pass.
AVX2 int block_check(const unsigned char *q, const unsigned nl, const unsigned d0, const uint64_t G, const uint64_t P,
                     const uint64_t M, const uint64_t D, const int template_ok, const int seconds, unsigned starts[4],
                     unsigned shapes[4], uint64_t signs[4]) {
    const uint64_t digits = (uint64_t)0xDB << (d0 + 12);
    const unsigned first = d0 + 22;
    if (!template_ok || (G & digits) != digits || seconds < 0 || nl <= first) return 0;
    // bounds() reads the 32 bytes from the first number on, cut to the row (row_layout()).
    const uint64_t width = 0xFFFFFFFFu & (((uint64_t)1 << (nl - first)) - 1);
    const unsigned e = bounds((G >> first) & width, (P >> first) & width, (M >> first) & width, (D >> first) & width, 2,
                              starts, shapes, signs);
    return e != 0 && row_end(q + first, e, nl - first);
}

// A checked row's layout kept in `kept` (its classes already there).
AVX2 const row_class *block_keep(row_class *kept, const unsigned starts[4], const unsigned shapes[4], const uint64_t signs[4]) {
    kept->shuffle = _mm256_loadu2_m128i((const __m128i *)masks[shapes[1]], (const __m128i *)masks[shapes[0]]);
    kept->high = _mm_setr_pd(inverse_high[shapes[0]], inverse_high[shapes[1]]);
    kept->low = _mm_setr_pd(inverse_low[shapes[0]], inverse_low[shapes[1]]);
    kept->sign = _mm_set_epi64x((long long)signs[1], (long long)signs[0]);
    kept->starts[0] = starts[0];
    kept->starts[1] = starts[1];
    return kept;
}

// The template row of a run without accuracy at q, its '\n' at nl (below 64), checked as
// run_template_row() checks it with two numbers: its kept layout (block_table) and its clock's
// seconds in *seconds, or NULL where it does not pass. Its bytes before the numbers must be the
// template's where `tmask` says; then where its classes are those of the entry its non-digit
// bytes choose, it takes that entry's layout, its clock converted and checked for range only;
// else it is checked in full (block_check()) and its layout kept in that entry, but in *spare
// when that entry is `keep` (the layout of the other row of a pair, still to be read).
AVX512 const row_class *block_class(const unsigned char *q, const unsigned nl, const __m512i template, const uint64_t tmask,
                                    const unsigned d0, const unsigned char delimiter, const row_class *keep,
                                    row_class *spare, int *seconds) {
    const __m512i v = _mm512_loadu_si512((const void *)q);
    const __mmask64 G = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8('0')), _mm512_set1_epi8(9));
    const uint64_t bytes = nl == 63 ? ~(uint64_t)0 : ((uint64_t)1 << (nl + 1)) - 1;
    const __m512i c = _mm512_mask_blend_epi8(G, v, _mm512_set1_epi8('0'));
    row_class *const entry = block_entry(~_cvtmask64_u64(G) & bytes);
    uint64_t time;
    memcpy(&time, q + d0 + 12, 8);
    *seconds = clock_seconds(time);
    const int template_ok = (_cvtmask64_u64(_mm512_cmpeq_epi8_mask(v, template)) & tmask) == tmask;
    // The row's bytes up to its '\n' against the entry's: an entry of a longer or shorter row
    // differs at one of the two rows' line feeds.
    if (__builtin_expect(_mm512_mask_cmpneq_epi8_mask(_cvtu64_mask64(bytes), c, _mm512_load_si512((const void *)entry->classes)) == 0, 1))
        return (template_ok & (*seconds >= 0)) ? entry : NULL;
    unsigned starts[4], shapes[4];
    uint64_t signs[4];
    if (!block_check(q, nl, d0, _cvtmask64_u64(G), _cvtmask64_u64(_mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('.'))),
                     _cvtmask64_u64(_mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('-'))),
                     _cvtmask64_u64(_mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8((char)delimiter))), template_ok, *seconds, starts,
                     shapes, signs))
        return NULL;
    row_class *const kept = entry == keep ? spare : entry;
    _mm512_store_si512((void *)kept->classes, c);
    return block_keep(kept, starts, shapes, signs);
}

// The numbers of rows a and b (a again when b is not taken), whose layouts are A's and B's
// (latitude, longitude), converted as convert512_at() converts them (the same bits), their
// conversion's table entries taken from A and B. Returns their ranges checked together, as
// position_in_range() checks them: bit k set when value k is within [-90, 90] (k even) or
// [-180, 180] (k odd), checked on the magnitude before the sign is set.
AVX512 unsigned convert512_classes(const unsigned char *a, const row_class *A, const unsigned char *b, const row_class *B,
                                   double *values) {
    __m512i bytes = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(a + A->starts[0])));
    bytes = _mm512_inserti32x4(bytes, _mm_loadu_si128((const __m128i *)(a + A->starts[1])), 1);
    bytes = _mm512_inserti32x4(bytes, _mm_loadu_si128((const __m128i *)(b + B->starts[0])), 2);
    bytes = _mm512_inserti32x4(bytes, _mm_loadu_si128((const __m128i *)(b + B->starts[1])), 3);
    const __m512i shuffle = _mm512_inserti64x4(_mm512_castsi256_si512(A->shuffle), B->shuffle, 1);
    const __m256d high = _mm256_insertf128_pd(_mm256_castpd128_pd256(A->high), B->high, 1);
    const __m256d low = _mm256_insertf128_pd(_mm256_castpd128_pd256(A->low), B->low, 1);
    const __m256i sign = _mm256_inserti128_si256(_mm256_castsi128_si256(A->sign), B->sign, 1);
    const __m256d x = quotients(mantissas512(bytes, shuffle), high, low);
    store_signed(x, sign, 4, values);
    return (unsigned)_cvtmask8_u32(_mm256_cmp_pd_mask(x, _mm256_setr_pd(90, 180, 90, 180), _CMP_LE_OQ));
}

// The offset of the first '\n' in the 64 bytes at q, or 64.
AVX2 unsigned line_end256(const unsigned char *q) {
    uint64_t N, stops;
    stops256(q, &N, &stops);
    uint64_t high, high_stops;
    stops256(q + 32, &high, &high_stops);
    return (unsigned)_tzcnt_u64(N | high << 32);
}

AVX512 unsigned line_end512(const unsigned char *q) {
    return (unsigned)_tzcnt_u64(_cvtmask64_u64(_mm512_cmpeq_epi8_mask(_mm512_loadu_si512((const void *)q), _mm512_set1_epi8('\n'))));
}

// Whether a template row's fix at time t with numbers v (latitude, longitude; `ranged` its two
// bits of convert512_classes()'s mask) is taken, as run_take_numbers() takes it, the run's last
// fix and limits in the block step's locals.
#define BLOCK_TAKES(ranged, t, v)                                                                                      \
    ((ranged) == 3 && (t) >= earliest && (t) <= latest                                                                 \
     && (!order || (t) > last_time || ((t) == last_time && ((v)[0] != last_lat || (v)[1] != last_lon))))
// The fix taken (BLOCK_TAKES), written as run_take() writes it, and made the run's last.
#define BLOCK_FIX(t, v)                                                                                                \
    last_time = (t), last_lat = (v)[0], last_lon = (v)[1];                                                             \
    fixes[k] = (geofence_fix){run->device, 0, 0, (t), (v)[0], (v)[1], 0};

// A block step's frame (BLOCK_STEP, BLOCK_STEP256): tried for template rows of a run without
// accuracy, from a row it has not failed on; its rows read in a loop while the call may take
// them, the run's last fix and limits in locals meanwhile (stores to the fixes cannot change
// them), written back at the end; the loop's next step when it took rows.
#define BLOCK_BEGIN                                                                                                    \
    if (tmask && !accuracy && at != failed_at) {                                                                       \
        const int k0 = k;                                                                                              \
        const double earliest = run->earliest, latest = run->latest, day = run->day;                                   \
        const int order = run->order;                                                                                  \
        double last_time = run->time, last_lat = run->lat, last_lon = run->lon;                                        \
        while (k < max && at <= last_start) {
#define BLOCK_END                                                                                                      \
        }                                                                                                              \
        run->time = last_time, run->lat = last_lat, run->lon = last_lon;                                               \
        if (k > k0) continue;                                                                                          \
    }

// Template rows of a run without accuracy (RUN at the AVX-512 level), two at a time: each
// row's line feed found from its own 64 bytes, the row checked by block_class() (its layout
// one of those kept, else checked in full and kept: no branch on which one), the two rows' four
// numbers converted together in one 512-bit register (convert512_classes(): the same bits as
// PAIR_STEP's), then each fix taken as PAIR_STEP takes it (BLOCK_BEGIN). The first row that
// does not pass, or ends the run, is left to PAIR_STEP and the steps after it (`failed_at`:
// the block step does not try that row again). The run routine alone over the AIS trace
// (`make bench-run-routine`): 16.4 → 11.4 ns a row (docs/logs.md, "Row blocks").
#define BLOCK_STEP                                                                                                     \
    BLOCK_BEGIN                                                                                                        \
            int sa, sb = 0;                                                                                            \
            row_class spare;                                                                                           \
            const unsigned nla = line_end512(p + at);                                                                  \
            const row_class *const A =                                                                                 \
                nla < 64 ? block_class(p + at, nla, template, tmask, d0, delimiter, NULL, NULL, &sa) : NULL;           \
            if (!A) {                                                                                                  \
                failed_at = at;                                                                                        \
                break;                                                                                                 \
            }                                                                                                          \
            const long bt = at + nla + 1;                                                                              \
            const unsigned nlb = line_end512(p + bt);                                                                  \
            const row_class *const Bk = k + 1 < max && bt <= last_start && nlb < 64                                    \
                                            ? block_class(p + bt, nlb, template, tmask, d0, delimiter, A, &spare, &sb) \
                                            : NULL;                                                                    \
            /* Row a's numbers in lanes 0 and 1, row b's (or a's again) in 2 and 3. */                                 \
            const row_class *const B = Bk ? Bk : A;                                                                    \
            const unsigned char *const a = p + at + d0 + 22, *const b = Bk ? p + bt + d0 + 22 : a;                     \
            double v[4];                                                                                               \
            const unsigned ranged = convert512_classes(a, A, b, B, v);                                                 \
            const double ta = day + (double)sa;                                                                        \
            if (!BLOCK_TAKES(ranged & 3, ta, v)) {                                                                     \
                failed_at = at;                                                                                        \
                break;                                                                                                 \
            }                                                                                                          \
            BLOCK_FIX(ta, v)                                                                                           \
            ROW_TAKEN(bt)                                                                                              \
            if (!Bk) break;                                                                                            \
            const double tb = day + (double)sb;                                                                        \
            if (!BLOCK_TAKES(ranged >> 2, tb, v + 2)) {                                                                \
                failed_at = at;                                                                                        \
                break;                                                                                                 \
            }                                                                                                          \
            BLOCK_FIX(tb, v + 2)                                                                                       \
            ROW_TAKEN(bt + (long)nlb + 1)                                                                              \
    BLOCK_END

// The AVX2 block step's row (BLOCK_STEP256): block_class() with 256-bit compares, the template
// in two halves (`low`, `high`).
AVX2 const row_class *block_class256(const unsigned char *q, const unsigned nl, const __m256i low, const __m256i high,
                                     const uint64_t tmask, const unsigned d0, const unsigned char delimiter, int *seconds) {
    const __m256i v0 = _mm256_loadu_si256((const __m256i *)q), v1 = _mm256_loadu_si256((const __m256i *)(q + 32));
    const __m256i s0 = _mm256_sub_epi8(v0, _mm256_set1_epi8('0')), s1 = _mm256_sub_epi8(v1, _mm256_set1_epi8('0'));
    const __m256i g0 = _mm256_cmpeq_epi8(_mm256_min_epu8(s0, _mm256_set1_epi8(9)), s0);
    const __m256i g1 = _mm256_cmpeq_epi8(_mm256_min_epu8(s1, _mm256_set1_epi8(9)), s1);
    const uint64_t G = (uint64_t)(uint32_t)_mm256_movemask_epi8(g0) | (uint64_t)(uint32_t)_mm256_movemask_epi8(g1) << 32;
    const __m256i c0 = _mm256_blendv_epi8(v0, _mm256_set1_epi8('0'), g0), c1 = _mm256_blendv_epi8(v1, _mm256_set1_epi8('0'), g1);
    const uint64_t bytes = nl == 63 ? ~(uint64_t)0 : ((uint64_t)1 << (nl + 1)) - 1;
    row_class *const entry = block_entry(~G & bytes);
    uint64_t time;
    memcpy(&time, q + d0 + 12, 8);
    *seconds = clock_seconds(time);
    const uint64_t E = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v0, low))
                     | (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v1, high)) << 32;
    const int template_ok = (E & tmask) == tmask;
    // The row's bytes up to its '\n' against the entry's (block_class()).
    const __m256i e0 = _mm256_load_si256((const __m256i *)entry->classes);
    const __m256i e1 = _mm256_load_si256((const __m256i *)(entry->classes + 32));
    const uint64_t same = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(c0, e0))
                        | (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(c1, e1)) << 32;
    if (__builtin_expect((same & bytes) == bytes, 1)) return (template_ok & (*seconds >= 0)) ? entry : NULL;
    uint64_t g, P, M, D;
    masks256(q, delimiter, &g, &P, &M, &D);
    uint64_t g1m, P1, M1, D1;
    masks256(q + 32, delimiter, &g1m, &P1, &M1, &D1);
    unsigned starts[4], shapes[4];
    uint64_t signs[4];
    if (!block_check(q, nl, d0, G, P | P1 << 32, M | M1 << 32, D | D1 << 32, template_ok, *seconds, starts, shapes, signs))
        return NULL;
    _mm256_store_si256((__m256i *)entry->classes, c0);
    _mm256_store_si256((__m256i *)(entry->classes + 32), c1);
    return block_keep(entry, starts, shapes, signs);
}

// A row's two numbers at a (latitude, longitude) whose layout is A's, converted as convert256()
// converts them (the same bits), their conversion's table entries taken from A; returns their
// ranges checked together, as convert512_classes() does (bits 0 and 1).
AVX2 unsigned convert256_class(const unsigned char *a, const row_class *A, double *values) {
    const __m256i each = _mm256_permute4x64_epi64(
        mantissas256(_mm256_loadu2_m128i((const __m128i *)(a + A->starts[1]), (const __m128i *)(a + A->starts[0])), A->shuffle), 0xD8);
    // m below 2^52: its double is exact as the bits of 2^52 + m less 2^52.
    const __m256d magic = _mm256_set1_pd(4503599627370496.0);
    const __m256d mantissa = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(each, _mm256_castpd_si256(magic))), magic);
    const __m256d x = quotients(mantissa, _mm256_set_m128d(A->high, A->high), _mm256_set_m128d(A->low, A->low));
    store_signed(x, _mm256_set_m128i(A->sign, A->sign), 2, values);
    return (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(x, _mm256_setr_pd(90, 180, 90, 180), _CMP_LE_OQ)) & 3;
}

// BLOCK_STEP at the AVX2 level: template rows of a run without accuracy one at a time, each
// row's layout from block_class256(), its two numbers converted in one 256-bit register
// (convert256_class()), its fix taken as run_read_template() takes it.
#define BLOCK_STEP256                                                                                                  \
    BLOCK_BEGIN                                                                                                        \
            int sa;                                                                                                    \
            const unsigned nla = line_end256(p + at);                                                                  \
            const row_class *const A =                                                                                 \
                nla < 64 ? block_class256(p + at, nla, low, high, tmask, d0, delimiter, &sa) : NULL;                   \
            if (!A) {                                                                                                  \
                failed_at = at;                                                                                        \
                break;                                                                                                 \
            }                                                                                                          \
            double v[2];                                                                                               \
            const unsigned ranged = convert256_class(p + at + d0 + 22, A, v);                                          \
            const double ta = day + (double)sa;                                                                        \
            if (!BLOCK_TAKES(ranged, ta, v)) {                                                                         \
                failed_at = at;                                                                                        \
                break;                                                                                                 \
            }                                                                                                          \
            BLOCK_FIX(ta, v)                                                                                           \
            ROW_TAKEN(at + (long)nla + 1)                                                                              \
    BLOCK_END

// geofence_run_rows at a level (`masks` its row_masks function, `same` the mask of the bytes
// where the 64 at a row equal the template's, `pair` whether template rows are read two at a
// time, PAIR_STEP): each row read against the row before the run when that is an ISO row of the
// given date (run_template()), else (or where the row differs from it) by run_read(); `fast`
// a step tried first (BLOCK_STEP), which sets failed_at.
#define RUN(masks, same, pair, fast)                                                                                   \
    long at = 0, last = 0;                                                                                             \
    int k = 0;                                                                                                         \
    *stopped = 0;                                                                                                      \
    if (!row_delimiter(delimiter) || run->name_length < 1) {                                                           \
        *stopped = 1;                                                                                                  \
        max = 0;                                                                                                       \
    }                                                                                                                  \
    numbers_layout layout = {0, 0, 0, 0, 0, 0, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};                              \
    const unsigned d0 = (unsigned)run->name_length;                                                                    \
    const uint64_t tmask = max > 0 ? run_template(run->name, d0, delimiter, day_head, day_tail) : 0;                   \
    long failed_at = -1;                                                                                               \
    (void)failed_at;                                                                                                   \
    while (k < max && at <= last_start) {                                                                              \
        fast                                                                                                           \
        const row_masks m = masks(p + at, delimiter);                                                                  \
        if (pair && tmask && !accuracy && k + 1 < max) {                                                               \
            PAIR_STEP(masks, same)                                                                                     \
        }                                                                                                              \
        int next = tmask ? run_read_template(m, same(p + at), p + at, tmask, d0, accuracy, &layout, run, fixes + k)    \
                         : -2;                                                                                         \
        if (next == -2)                                                                                                \
            next = run_read(m, p + at, accuracy, delimiter, day_head, day_tail, &layout, run, fixes + k);              \
        if (next <= 0) {                                                                                               \
            *stopped = 1;                                                                                              \
            break;                                                                                                     \
        }                                                                                                              \
        ROW_TAKEN(at + next)                                                                                           \
    }                                                                                                                  \
    run->line += k;                                                                                                    \
    *consumed = at;                                                                                                    \
    *last_row = last;                                                                                                  \
    return k;

__attribute__((target("avx2,bmi,popcnt,fma"))) static int run_rows256(const unsigned char *p, long last_start, int accuracy,
                                                                 unsigned char delimiter, uint64_t day_head, uint16_t day_tail,
                                                                 geofence_run *run, geofence_fix *fixes, long *lines, int max,
                                                                 long *consumed, long *last_row, int *stopped) {
    const __m256i low = _mm256_loadu_si256((const __m256i *)run->name), high = _mm256_loadu_si256((const __m256i *)(run->name + 32));
#define SAME256(q)                                                                                                     \
    ((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(q)), low))        \
     | (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)((q) + 32)), high)) << 32)
    RUN(row_masks256, SAME256, 0, BLOCK_STEP256)
#undef SAME256
}

__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,bmi,popcnt,fma"))) static int run_rows512(
    const unsigned char *p, long last_start, int accuracy, unsigned char delimiter, uint64_t day_head, uint16_t day_tail,
    geofence_run *run, geofence_fix *fixes, long *lines, int max, long *consumed, long *last_row, int *stopped) {
    const __m512i template = _mm512_loadu_si512((const void *)run->name);
#define SAME512(q) _cvtmask64_u64(_mm512_cmpeq_epi8_mask(_mm512_loadu_si512((const void *)(q)), template))
    RUN(row_masks512, SAME512, 1, BLOCK_STEP)
#undef SAME512
}
#undef RUN
#undef BLOCK_STEP
#undef BLOCK_STEP256
#undef BLOCK_BEGIN
#undef BLOCK_END
#undef BLOCK_TAKES
#undef BLOCK_FIX
#undef PAIR_STEP
#undef ROW_TAKEN
#undef ROWS
#endif

// geofence_plain_decimals_run for the level now.
static void choose_run(void) {
#if defined(__x86_64__)
    geofence_plain_decimals_run = level == 3 ? decimals512 : level == 2 ? decimals256 : level == 1 ? decimals : no_decimals;
    geofence_standard_rows_run = level == 3 ? rows512 : level == 2 ? rows256 : no_rows;
    geofence_run_rows_run = level == 3 ? run_rows512 : level == 2 ? run_rows256 : no_run_rows;
#else
    geofence_plain_decimals_run = no_decimals;
    geofence_standard_rows_run = no_rows;
    geofence_run_rows_run = no_run_rows;
#endif
}

// The path's function (one choice of it: choose_run), for the counts it takes.
int geofence_plain_decimals(const unsigned char *p, int count, unsigned char delimiter, double *values) {
    return count >= 1 && count <= 4 ? geofence_plain_decimals_run(p, count, delimiter, values) : 0;
}

int geofence_line_end(const unsigned char *p) {
#if defined(__x86_64__)
    // SSE2, which every x86-64 CPU has: 16-byte compares, the first 32 bytes first (the rest
    // of a usual row, from its first number on, is shorter: the last two are seldom read).
    const __m128i newline = _mm_set1_epi8('\n');
    const unsigned near = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), newline))
                        | (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 16)), newline)) << 16;
    if (near) return __builtin_ctz(near);
    const unsigned far = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 32)), newline))
                       | (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 48)), newline)) << 16;
    return far ? 32 + __builtin_ctz(far) : 64;
#else
    for (int i = 0; i < 64; i++) if (p[i] == '\n') return i;
    return 64;
#endif
}
