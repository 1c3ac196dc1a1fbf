#pragma once
#include <fcntl.h>
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

// libFuzzer's driver (linked only in fuzzing builds, `make fuzz`): the fuzz targets' main
// hands it their input callback.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const unsigned char *data, unsigned long size));
