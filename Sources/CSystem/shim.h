#pragma once
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

// Atomically exchanges two paths (Linux renameat2 with RENAME_EXCHANGE, 3.15+): a tile
// bundle directory is swapped with its staged replacement in one step, so that it always
// holds one complete bundle. glibc declares renameat2 only under _GNU_SOURCE, and Swift
// cannot call the variadic syscall(2) itself, so the call is wrapped here.
// Returns 0, or -1 with errno (EINVAL or ENOSYS where the file system or kernel lacks it).
static inline int geofence_exchange_paths(const char *a, const char *b) {
    return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 2 /* RENAME_EXCHANGE */);
}

// Asks for the cache line at p ahead of its use (a hint: no fault, no effect on the results).
// Loops whose every step reads a random place of a large table (a device's slot, a grid
// cell's bits) issue it a few steps ahead, so that their cache misses overlap.
static inline void geofence_prefetch(const void *p) { __builtin_prefetch(p, 0, 3); }

// The miss filter's one-bit test (Swift: MissFilter.Probe, docs/evaluation.md "Fixes that meet
// no fence") as the evaluator's screen runs it over a batch: the grown grid's bits and cell
// arithmetic, and the exit margin added to each fix's accuracy.
typedef struct {
    const uint64_t *bits;
    long width;
    double scale_x, scale_y, last_column, last_row;
    double fast_metres;       // < 0: the bit decides nothing
    double margin;
    int has_large;            // a clear bit still needs the large boxes checked
} geofence_screen_probe;

// The cell whose bit decides the point, or -1 where none does (beyond 80 degrees of latitude,
// a longitude outside [-180, 180], a probe that decides nothing): MissFilter.Probe.cell.
static inline long geofence_screen_cell(const geofence_screen_probe *p, double lat, double lon) {
    if (!(p->fast_metres >= 0 && __builtin_fabs(lat) <= 80 && __builtin_fabs(lon) <= 180)) return -1;
    const double x = (lon + 180) * p->scale_x, y = (lat + 90) * p->scale_y;
    return (long)(p->last_row < y ? p->last_row : y) * p->width + (long)(p->last_column < x ? p->last_column : x);
}

// Screens the fixes from..<to of a batch (`stride` bytes apart; lat, lon and accuracy at the
// given byte offsets) in order: a fix whose cell's bit is clear (no large boxes) meets no
// fence and gets the 12 bytes of `none` (the evaluator's empty answer) at answers + 12 j; a
// fix whose bit is set goes to rest[(*m)++]. Stops at the first fix the bit cannot decide (a
// wide window, a high latitude, large boxes) and returns its position for the caller to ask
// the filter itself; returns `to` when all are screened. Each fix's word of the grid is asked
// for (prefetched) eight fixes ahead, the grid being too large to stay in cache.
static inline long geofence_screen(const geofence_screen_probe *p, const unsigned char *fixes, long stride,
                                   long lat_at, long lon_at, long accuracy_at, long from, long to,
                                   unsigned char *answers, const void *none,
                                   int32_t *rest, long *m) {
    enum { lead = 8 };
    long ring[16];
    const uint64_t *bits = p->bits;
    const double fast = p->fast_metres, margin = p->margin;
    const int large = p->has_large;
    long count = *m;
#define GEOFENCE_AT(j, at) (*(const double *)(fixes + (j) * stride + (at)))
    for (long i = from; i < from + lead && i < to; i++) {
        const long c = geofence_screen_cell(p, GEOFENCE_AT(i, lat_at), GEOFENCE_AT(i, lon_at));
        ring[i & 15] = c;
        if (c >= 0) __builtin_prefetch(bits + (c >> 6), 0, 3);
    }
    long j = from;
    for (; j < to; j++) {
        if (j + lead < to) {
            const long c = geofence_screen_cell(p, GEOFENCE_AT(j + lead, lat_at), GEOFENCE_AT(j + lead, lon_at));
            ring[(j + lead) & 15] = c;
            if (c >= 0) __builtin_prefetch(bits + (c >> 6), 0, 3);
        }
        const long c = ring[j & 15];
        if (!(c >= 0 && GEOFENCE_AT(j, accuracy_at) + margin <= fast)) break;
        if (bits[c >> 6] & ((uint64_t)1 << (c & 63))) {
            rest[count++] = (int32_t)j;
        } else if (large) {
            break;
        } else {
            memcpy(answers + j * 12, none, 12);
        }
    }
#undef GEOFENCE_AT
    *m = count;
    return j;
}

// libFuzzer's driver (linked only in fuzzing builds, `make fuzz`): the fuzz targets' main
// hands it their input callback.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const unsigned char *data, unsigned long size));
