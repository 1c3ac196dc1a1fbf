// The CSV run routine alone (`geofence_run_rows`, Sources/CFastDecimal; docs/logs.md, "Row
// blocks"): a log of `device,time,lat,lon` rows with ISO times, each run of one device's rows
// fed to the routine as the reader feeds it (the row before the run as its template and last
// fix, up to 1,024 rows a call), the whole log read `passes` times over; prints the best pass's
// time per row read by the routine and a checksum of the fixes (the same for any build that
// reads the same values). Usage: run-rows LOG.csv [passes] [level]. `make bench-run-routine`
// builds and runs it (ROUTINE_LOG, ROUTINE_PASSES, ROUTINE_LEVEL: 2 for the AVX2 routine where
// the best is AVX-512). A measuring tool: it judges nothing.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fast_decimal.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

// Days from 1970-01-01 to the given civil date (proleptic Gregorian).
static long days_from_civil(long y, unsigned m, unsigned d) {
    y -= m <= 2;
    const long era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long)doe - 719468;
}

static unsigned two(const unsigned char *p) { return (unsigned)(p[0] - '0') * 10 + (unsigned)(p[1] - '0'); }

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: run-rows LOG.csv [passes] [level]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    // 256 zero bytes after the log: the routine reads 64 bytes at a row's start.
    unsigned char *p = calloc((size_t)n + 256, 1);
    if (!p || fread(p, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "%s: cannot read\n", argv[1]);
        return 1;
    }
    fclose(f);
    const int passes = argc > 2 ? atoi(argv[2]) : 40;
    const int best_level = geofence_plain_decimals_level(-1);
    const int level = argc > 3 ? geofence_plain_decimals_level(atoi(argv[3])) : best_level;
    geofence_fix *fixes = malloc(sizeof(geofence_fix) * 1024);
    long start = 0;
    while (start < n && p[start] != '\n') start++;                 // the header
    start++;
    double best = INFINITY, checksum = 0;
    long rows = 0, in_runs = 0;
    for (int pass = 0; pass < passes; pass++) {
        const double t0 = now();
        rows = 0, in_runs = 0, checksum = 0;
        long pos = start;
        while (n - pos >= 192) {
            // A run's first row, read here: its device, date, clock and numbers.
            const unsigned char *r = p + pos;
            int d0 = 0, len = 0;
            while (pos + d0 < n && r[d0] != ',' && r[d0] != '\n') d0++;
            while (pos + len < n && r[len] != '\n') len++;
            const unsigned char *t = r + d0 + 1;
            if (r[d0] != ',' || len < d0 + 22) {
                pos += len + 1;                                     // not a row of this form
                continue;
            }
            const double day = (double)days_from_civil((long)two(t) * 100 + two(t + 2), two(t + 5), two(t + 8)) * 86400;
            uint64_t head;
            uint16_t tail;
            memcpy(&head, t, 8);
            memcpy(&tail, t + 8, 2);
            char *e;
            const double lat = strtod((const char *)t + 21, &e), lon = strtod(e + 1, NULL);
            geofence_run run = {.name = r, .name_length = d0, .device = 1, .order = 1,
                                .time = day + two(t + 11) * 3600 + two(t + 14) * 60 + two(t + 17), .lat = lat, .lon = lon,
                                .day = day, .per_second = 0, .earliest = -INFINITY, .latest = INFINITY, .line = 0};
            rows++;
            long next = pos + len + 1;
            // The rest of the run, 1,024 rows a call at most.
            for (;;) {
                const long last_start = n - next - 192;
                long consumed = 0, last_row = 0;
                int stopped = 0;
                const int k = last_start < 0 ? 0
                                             : geofence_run_rows(p + next, last_start, 0, ',', head, tail, &run, fixes, NULL,
                                                                 1024, &consumed, &last_row, &stopped);
                rows += k;
                in_runs += k;
                if (k > 0) {
                    checksum += fixes[k - 1].lat + fixes[k - 1].lon + fixes[0].time;
                    run.name = p + next + last_row;
                }
                next += consumed;
                if (stopped || k == 0) break;
            }
            pos = next;
        }
        const double dt = now() - t0;
        if (dt < best) best = dt;
    }
    printf("level %d (best %d): %ld rows, %ld read by the run routine; best of %d passes %.3f ms, %.2f ns a row; checksum %.6f\n",
           level, best_level, rows, in_runs, passes, best * 1e3, best * 1e9 / (double)(in_runs > 0 ? in_runs : 1), checksum);
    return 0;
}
