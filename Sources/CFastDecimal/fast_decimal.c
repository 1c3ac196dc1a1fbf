#include "fast_decimal.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <tmmintrin.h>

// Whether the CPU has SSSE3, set once before main.
static int have_ssse3 = 0;

// By a number's length in bytes (end, 1...15, its sign included) and the place of its point
// (point; end - 1, the last digit's place, when it has none), as entry end * 16 + point:
// the pshufb mask that puts its digits last in 16 lanes, zeros before (lane i takes byte
// i + end - 16, the lanes before the point one byte earlier so that the point drops out; 0x80,
// a zero lane, where that is before the number), and 10^(digits after the point), exact.
static uint8_t masks[16 * 16][16];
static double scales[16 * 16];

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
        }
    }
    unsigned a, b, c, d;
    have_ssse3 = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3) != 0;
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
#endif

int geofence_plain_decimals(const unsigned char *p, int count, unsigned char delimiter, double *values) {
#if defined(__x86_64__)
    if (__builtin_expect(have_ssse3, 1) && count >= 1 && count <= 4) return decimals(p, count, delimiter, values);
#endif
    (void)p;
    (void)count;
    (void)delimiter;
    (void)values;
    return 0;
}
