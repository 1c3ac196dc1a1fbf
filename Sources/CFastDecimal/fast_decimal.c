#include "fast_decimal.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <tmmintrin.h>

// 10^k for 0 <= k <= 15, each exact.
static const double powers[16] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
                                  1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

// Whether the CPU has SSSE3, set once before main.
static int have_ssse3 = 0;

// The pshufb masks that put a number's digits last in 16 lanes, zeros before, by its length in
// bytes (0...15, its sign included) and its fraction digits (0 without a point): lane i takes
// byte i + length - 16, the lanes before the point one byte earlier so that the point drops
// out; 0x80 (a zero lane) where that is before the number.
static uint8_t masks[16 * 16][16];

__attribute__((constructor)) static void fast_decimal_init(void) {
    for (int length = 0; length < 16; length++) {
        for (int fraction = 0; fraction < 16; fraction++) {
            for (int i = 0; i < 16; i++) {
                int from = i + length - 16 - (fraction > 0 && i < 16 - fraction);
                masks[length * 16 + fraction][i] = from < 0 ? 0x80 : (uint8_t)from;
            }
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
    // The first byte past the sign that is not a digit or a point (16 when there is none: the
    // complement has bit 16 set).
    const unsigned end = (unsigned)__builtin_ctz(~(digits | dots | negative));
    const unsigned dot = dots & ((1u << end) - 1);
    // Declined: no end within the 16 bytes, a second point, no digit just before the end (no
    // digit at all, or a point without a digit after it).
    if (__builtin_expect((end >> 4) | (dot & (dot - 1)) | (~(digits << 1) >> end & 1), 0)) return 0;
    if (end == 0) __builtin_unreachable();                              // a digit is before it
    // The point's place, or the last digit's without one: fraction digits after it.
    const unsigned fraction = end - 1 - (unsigned)__builtin_ctz(dot | 1u << (end - 1));

    // The digits last in 16 lanes, zeros before (the sign and the point dropped).
    const __m128i lanes = _mm_shuffle_epi8(_mm_and_si128(d, is_digit),
                                           _mm_loadu_si128((const __m128i *)masks[end * 16 + fraction]));
    // Pairs (10a + b), fours (100ab + cd), eights (10^4 abcd + efgh): two 8-digit halves.
    const __m128i pairs = _mm_maddubs_epi16(lanes, _mm_setr_epi8(10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1));
    const __m128i fours = _mm_madd_epi16(pairs, _mm_setr_epi16(100, 1, 100, 1, 100, 1, 100, 1));
    const __m128i eights = _mm_madd_epi16(_mm_packs_epi32(fours, fours),
                                          _mm_setr_epi16(10000, 1, 10000, 1, 10000, 1, 10000, 1));
    const uint64_t halves = (uint64_t)_mm_cvtsi128_si64(eights);
    const uint64_t m = (halves & 0xFFFFFFFFu) * 100000000u + (halves >> 32);   // below 10^15

    // Both operands exact, one correctly rounded division (by 1 for an integer).
    const double x = (double)(int64_t)m / powers[fraction];
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
