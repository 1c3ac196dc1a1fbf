#pragma once

#include <stdint.h>

// Every pointer below is non-null (Swift imports them as such).
#pragma clang assume_nonnull begin

// Plain decimal numbers `[-]digits[.digits]` converted with SSSE3, AVX2 or AVX-512 (docs/logs.md, "Numbers"):
// the CSV reader's one-check rows call it for their run of numeric fields and keep their own
// path as the fallback.

// Reads `count` (1...4) plain decimals at p, each followed by `delimiter` but the last; 16 *
// count bytes must be readable from p. A number is an optional '-', digits, and at most one '.'
// with at least one digit after it; it ends at the first byte that is neither a digit nor the
// first '.'. Stores the correctly rounded double of each number in values[0..<count] ("-0"
// gives -0.0) and returns the offset from p of the byte after the last number (what that byte
// is, is the caller's to check). Returns 0, values maybe partly written, when it does not
// decide: a number without a digit, with a '+', a '.' without a digit after it, a number of
// 16 bytes or more (its sign included), a number not followed by the delimiter (but the last),
// or a CPU without SSSE3. With AVX2 (and BMI1, POPCNT), or AVX-512 (BW, DQ, VL) on top of
// that, the numbers of a run are found and converted side by side, with the same results.
// Within those bounds a number has at most 15 digits (below 2^53) and 14 fraction digits, so
// one division by an exact power of ten gives the correctly rounded value (Clinger's fast
// path); the wide paths give the same bits by products with 1 / 10^k held in two parts
// (docs/logs.md, "Numbers").
int geofence_plain_decimals(const unsigned char *p, int count, unsigned char delimiter, double *values);

// The function of the path geofence_plain_decimals takes now (set with the path, below), for a
// count of 1...4 only (geofence_plain_decimals checks the count, then calls it). The CSV reader
// calls it for every row, without that check.
typedef int (*geofence_decimals_function)(const unsigned char *p, int count, unsigned char delimiter, double *values);
extern geofence_decimals_function _Nonnull geofence_plain_decimals_run;

// A call of geofence_plain_decimals_run (inlined into the caller: one load, one call).
static inline int geofence_plain_decimals_direct(const unsigned char *p, int count, unsigned char delimiter, double *values) {
    return geofence_plain_decimals_run(p, count, delimiter, values);
}

// The path geofence_plain_decimals takes: 0 none (it always returns 0), 1 SSSE3, 2 AVX2, 3 AVX-512;
// detected once at start as the best the CPU and OS allow. A `wanted` of 0 or more sets it
// (never above what was detected; for tests); a negative one only reads it. Returns the path now.
int geofence_plain_decimals_level(int wanted);

// Rows of the usual layout `device,time,lat,lon[,accuracy]` read one after the other at the wide
// levels (2 and 3; none at the others), each from the masks of its first 64 bytes
// (docs/logs.md, "Row blocks"): rows starting at p, at offsets up to last_start, each with 192
// bytes readable from its start, at most `max` of them. A row is read when it fits in its 64
// bytes with its '\n', its device is 1 byte or more of '!' to '~' but '"' (no blank, control
// byte, quote or non-ASCII byte), its time is `YYYY-MM-DDThh:mm:ssZ` ('T', 't' or ' '; 'Z' or
// 'z'; a valid clock, a leap second 60 taken) whose date's first 10 bytes are day_head and
// day_tail as loaded, or a plain number, its numbers are plain decimals as
// geofence_plain_decimals reads them, the last ending the row (at its '\n' or a '\r' before
// it), the latitude within [-90, 90], the longitude within [-180, 180] and the accuracy (when
// `accuracy` is 1) at least 0. Fills rows[k] for each row read and returns their count,
// stopping at the first row it does not read; *new_day is 1 when that row stopped it at its
// date, an ISO time whose date is not the one given (its separators and clock checked, the rest
// of the row not yet; rows[count].device_end set): the caller converts the date and calls
// again. The values are those of the reader's own path.
typedef struct {
    double numbers[4];   // the plain numbers in order: the time first when it is one, lat, lon, accuracy
    uint64_t hash;       // the device name's key, as the reader's device table makes it
    uint64_t tail;
    int device_end;      // the device's length (its delimiter's offset from the row's start)
    int clock;           // an ISO time's seconds since midnight; -1: the time is numbers[0]
    int next;            // the next row's offset from this row's start
    int unused;
} geofence_row;
typedef int (*geofence_rows_function)(const unsigned char *p, long last_start, int accuracy, unsigned char delimiter,
                                      uint64_t day_head, uint16_t day_tail, geofence_row *rows, int max, int *new_day);
extern geofence_rows_function _Nonnull geofence_standard_rows_run;

// A call of geofence_standard_rows_run (inlined into the caller).
static inline int geofence_standard_rows(const unsigned char *p, long last_start, int accuracy, unsigned char delimiter,
                                         uint64_t day_head, uint16_t day_tail, geofence_row *rows, int max, int *new_day) {
    return geofence_standard_rows_run(p, last_start, accuracy, delimiter, day_head, day_tail, rows, max, new_day);
}

// A fix as the log readers deliver it: the memory layout of the Swift `Fix` (the reader checks
// that it is, and reads no run otherwise).
typedef struct {
    int32_t device;
    int16_t offset;      // the time's UTC offset in minutes: 0 (a `Z` time, or a numeric one)
    int16_t unused;
    double time, lat, lon, accuracy;
} geofence_fix;

// A run of rows of one device (geofence_run_rows), and what it has read so far.
typedef struct {
    const unsigned char *name;  // the device's name (the bytes of the row before the run)
    int name_length;            // its length (1 or more)
    int32_t device;             // written into each fix
    int order;                  // 1: each fix must follow the one before (time, lat, lon below)
    int unused;
    double time, lat, lon;      // the fix before; each fix read becomes it
    double day;                 // the seconds since 1970 of the given date's midnight (UTC)
    double per_second;          // a numeric time is divided by this; 0: a numeric time ends the run
    double earliest, latest;    // the times accepted
    long line;                  // the line of the row before; each row read adds one
} geofence_run;

// The rows of a run of one device, read as geofence_standard_rows reads a row (the same
// conditions, the same values), from p while they start at or before last_start (each with 192
// bytes readable from its start), at most `max` of them: each row's device must be run->name,
// its time (the ISO clock on the given date, or a numeric time divided by run->per_second) within
// [run->earliest, run->latest] and, with run->order, after the run's last fix or at the same time
// elsewhere (DeviceState.follows). Writes each row's fix to fixes[k] (device run->device, offset
// 0, accuracy 0 without the column) and, when lines is not null, its line to lines[k]; returns
// how many rows were read, their bytes in *consumed, the last one's offset from p in *last_row,
// and *stopped 1 when a row ended the run (one this does not read, of another device, out of
// range or out of order; a new date too), 0 when max or last_start did. Levels 0 and 1 read none.
typedef int (*geofence_run_function)(const unsigned char *p, long last_start, int accuracy, unsigned char delimiter,
                                     uint64_t day_head, uint16_t day_tail, geofence_run *run, geofence_fix *fixes,
                                     long *_Nullable lines, int max, long *consumed, long *last_row, int *stopped);
extern geofence_run_function _Nonnull geofence_run_rows_run;

// A call of geofence_run_rows_run (inlined into the caller).
static inline int geofence_run_rows(const unsigned char *p, long last_start, int accuracy, unsigned char delimiter,
                                    uint64_t day_head, uint16_t day_tail, geofence_run *run, geofence_fix *fixes,
                                    long *_Nullable lines, int max, long *consumed, long *last_row, int *stopped) {
    return geofence_run_rows_run(p, last_start, accuracy, delimiter, day_head, day_tail, run, fixes, lines, max, consumed,
                                 last_row, stopped);
}

// The offset of the first '\n' in the 64 bytes at p (all readable), or 64 when there is none.
// The CSV reader finds a row's end with it apart from reading the row's fields, so that the
// next row's start does not wait for them.
int geofence_line_end(const unsigned char *p);

#pragma clang assume_nonnull end
