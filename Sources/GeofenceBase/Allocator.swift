import CSystem

/// The C allocator's settings for a process that reads and evaluates on several threads
/// (docs/architecture.md#the-allocator).
public enum Allocator {
    /// Blocks of up to 32 MiB come from the allocator's heaps rather than from a mapping of
    /// their own each, and the heaps grow 64 MiB at a time and are not trimmed while the
    /// process runs. Every mapping, unmapping, heap growth or trim takes the process's
    /// address-space lock for writing, and each other thread that meets a page fault meanwhile
    /// sleeps until it is released; a parallel read made dozens of them per run (its chunks'
    /// arrays, the device tables, the evaluator's buffers). Memory freed stays with the process
    /// for its next blocks. `geofence` and `geofence-bench` call it first thing; a program
    /// that uses the library decides for itself.
    public static func tuneForParallelRuns() {
        _ = mallopt(M_MMAP_THRESHOLD, 32 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, Int32.max)
        _ = mallopt(M_TOP_PAD, 64 << 20)
    }
}
