#pragma once

#include <stdint.h>

#pragma clang assume_nonnull begin

// Line feeds counted ahead of the parallel reader (docs/logs.md#parallel-reading): a parse
// worker with nothing to parse counts the next round's line feeds per block of a mapped file,
// and the reader, cutting that round into chunks, adds them up to know how many fixes each
// chunk can make, and so where in the batch each chunk's fixes go.

// The bytes of a block.
#define GEOFENCE_LINE_BLOCK 4096

// How many bytes of p[0..<n] are '\n'.
long geofence_count_line_feeds(const unsigned char *p, long n);

// Counts the line feeds of blocks first..<last of the `size` bytes at base (block b: bytes
// b * GEOFENCE_LINE_BLOCK up to the next block or `size`) and stores each block's count plus 1
// in counts[b] (an atomic store: 0 stays "not counted"), skipping blocks already counted.
void geofence_count_line_blocks(const unsigned char *base, long size, uint32_t *counts, long first, long last);

// The line feeds of blocks first..<last from their stored counts, or -1 when one of them is not
// counted yet.
long geofence_sum_line_blocks(const uint32_t *counts, long first, long last);

#pragma clang assume_nonnull end
