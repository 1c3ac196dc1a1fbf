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
// bytes (0...16, loaded from its first digit or point) and its fraction digits (0 without a
// point): lane i takes byte i + length - 16, the lanes before the point one byte earlier so
// that the point drops out; 0x80 (a zero lane) where that is before the number.
static uint8_t masks[17][16][16];

__attribute__((constructor)) static void fast_decimal_init(void) {
    for (int length = 0; length <= 16; length++) {
        for (int fraction = 0; fraction < 16; fraction++) {
            for (int i = 0; i < 16; i++) {
                int from = i + length - 16 - (fraction > 0 && i < 16 - fraction);
                masks[length][fraction][i] = from < 0 ? 0x80 : (uint8_t)from;
            }
        }
    }
    unsigned a, b, c, d;
    have_ssse3 = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3) != 0;
}

// The digits, points, minus signs and delimiters among the 16 bytes at q, one bit each (first
// byte lowest), shifted to their place in the 64-bit masks.
struct classes {
    uint64_t digits, dots, minus, delimiters;
};

__attribute__((target("ssse3"), always_inline)) static inline void classify(const unsigned char *q, int shift,
                                                                            __m128i delimiter, struct classes *c) {
    const __m128i v = _mm_loadu_si128((const __m128i *)q);
    const __m128i d = _mm_sub_epi8(v, _mm_set1_epi8('0'));
    // A byte is a digit when its value minus '0' is at most 9 (unsigned).
    c->digits |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d)) << shift;
    c->dots |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('.'))) << shift;
    c->minus |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('-'))) << shift;
    c->delimiters |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, delimiter)) << shift;
}

__attribute__((target("ssse3"))) static int decimals(const unsigned char *p, int count, unsigned char delimiter,
                                                     double *values) {
    // One pass over the bytes the numbers take (about 11 each, 16 at a time).
    struct classes c = {0, 0, 0, 0};
    const __m128i d = _mm_set1_epi8((char)delimiter);
    const int chunks = (11 * count + 15) / 16;
    switch (chunks) {
    default: classify(p + 32, 32, d, &c); /* fall through */
    case 2: classify(p + 16, 16, d, &c); /* fall through */
    case 1: classify(p, 0, d, &c);
    }
    // The numbers end at the first `count` bytes that are not a digit, a point or a '-'; the
    // last byte classified is taken as one, so that there are enough.
    const unsigned last = 16 * (unsigned)chunks - 1;
    const uint64_t stops = ~(c.digits | c.dots | c.minus) | (uint64_t)1 << last;
    uint64_t rest = stops;
    for (int n = 1; n < count; n++) rest &= rest - 1;
    const unsigned end = (unsigned)__builtin_ctzll(rest);
    const uint64_t ends = stops & (((uint64_t)2 << end) - 1);
    const uint64_t separators = ends & ~((uint64_t)1 << end);
    // Declined for all at once: the last end at the last byte classified, a separator that is
    // not the delimiter, a number without a digit just before its end (no digit at all, or a
    // point without a digit after it), a '-' that does not start a number.
    if (end >= last || (separators & ~c.delimiters) || ((c.digits << 1) & ends) != ends ||
        (c.minus & ~((separators << 1) | 1) & (((uint64_t)1 << end) - 1)))
        return 0;

    uint64_t left = ends;
    unsigned start = 0;
    for (int n = 0; n < count; n++) {
        const unsigned stop = (unsigned)__builtin_ctzll(left);
        left &= left - 1;
        const unsigned negative = (unsigned)(c.minus >> start) & 1;
        const unsigned s = start + negative;                          // the first digit or point
        const unsigned length = stop - s;
        const uint64_t dot = c.dots & (((uint64_t)1 << stop) - ((uint64_t)1 << start));
        // Declined: a second point, more than 15 digits.
        if ((dot & (dot - 1)) || length - (dot != 0) > 15) return 0;
        const unsigned fraction = dot ? stop - 1 - (unsigned)__builtin_ctzll(dot) : 0;

        const __m128i v = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(p + s)), _mm_set1_epi8('0'));
        const __m128i lanes = _mm_shuffle_epi8(v, _mm_loadu_si128((const __m128i *)masks[length][fraction]));
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
        bits |= (uint64_t)negative << 63;                               // -0 for "-0"
        memcpy(values + n, &bits, sizeof bits);
        start = stop + 1;
    }
    return (int)end;
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
