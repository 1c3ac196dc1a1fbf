#include "line_feeds.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

long geofence_count_line_feeds(const unsigned char *p, long n) {
    long total = 0, i = 0;
#if defined(__x86_64__)
    // SSE2, which every x86-64 CPU has: a compare gives -1 per line feed, four compares summed
    // and subtracted from byte counters (at most 4 a step), which are added up (psadbw) every
    // 32 steps, before a byte can overflow. The counting is bounded by memory, not by this.
    const __m128i newline = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
    while (i + 64 <= n) {
        __m128i bytes = zero;
        for (int step = 0; step < 32 && i + 64 <= n; step++, i += 64) {
            const __m128i a = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i)), newline);
            const __m128i b = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i + 16)), newline);
            const __m128i c = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i + 32)), newline);
            const __m128i d = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i + 48)), newline);
            bytes = _mm_sub_epi8(bytes, _mm_add_epi8(_mm_add_epi8(a, b), _mm_add_epi8(c, d)));
        }
        const __m128i sums = _mm_sad_epu8(bytes, zero);
        total += _mm_cvtsi128_si64(sums) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums));
    }
#endif
    for (; i < n; i++) total += p[i] == '\n';
    return total;
}

void geofence_count_line_blocks(const unsigned char *base, long size, uint32_t *counts, long first, long last) {
    for (long b = first; b < last; b++) {
        if (__atomic_load_n(counts + b, __ATOMIC_RELAXED) != 0) continue;
        const long from = b * GEOFENCE_LINE_BLOCK;
        if (from >= size) break;
        const long n = size - from < GEOFENCE_LINE_BLOCK ? size - from : GEOFENCE_LINE_BLOCK;
        __atomic_store_n(counts + b, (uint32_t)geofence_count_line_feeds(base + from, n) + 1, __ATOMIC_RELAXED);
    }
}

long geofence_sum_line_blocks(const uint32_t *counts, long first, long last) {
    long total = 0;
    for (long b = first; b < last; b++) {
        const uint32_t c = __atomic_load_n(counts + b, __ATOMIC_RELAXED);
        if (c == 0) return -1;
        total += (long)c - 1;
    }
    return total;
}
