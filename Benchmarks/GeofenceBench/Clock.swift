import GeofenceKit
import GeofenceTestSupport
import Foundation
import Glibc

/// Monotonic time for the runner: `clock_gettime(CLOCK_MONOTONIC)` (vDSO, ~20 ns a call).
enum Clock {
    /// Nanoseconds since an arbitrary origin.
    @inline(__always)
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Nanoseconds this thread has run on a CPU (`CLOCK_THREAD_CPUTIME_ID`; a system call,
    /// ~0.7 µs here, so read once per window of queries, not per query).
    @inline(__always)
    static func threadCPU() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Nanoseconds of CPU time used by all threads of the process (`CLOCK_PROCESS_CPUTIME_ID`).
    static func processCPU() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Wall and process-CPU seconds taken by `body`.
    static func wallAndCPU(_ body: () throws -> Void) rethrows -> (wall: Double, cpu: Double) {
        let c0 = processCPU(), t0 = now()
        try body()
        let t1 = now(), c1 = processCPU()
        return (Double(t1 - t0) / 1e9, Double(c1 - c0) / 1e9)
    }

    /// Seconds taken by `body`.
    @inline(__always)
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let t0 = now()
        try body()
        return Double(now() - t0) / 1e9
    }
}

/// Results are passed here so the optimizer cannot drop the work that produced them.
@_optimize(none) @inline(never)
func blackHole<T>(_ x: T) {}

/// Resident and peak memory of the process, from /proc/self/status (bytes).
enum ProcessMemory {
    static func read() -> (rss: Int, peak: Int) {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        var rss = 0, peak = 0
        for line in text.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count >= 2, let kb = Int(parts[1]) else { continue }
            if parts[0] == "VmRSS:" { rss = kb * 1024 }
            if parts[0] == "VmHWM:" { peak = kb * 1024 }
        }
        return (rss, peak)
    }

    /// Returns freed heap pages to the system so RSS deltas mean something.
    static func trim() { _ = glibcMallocTrim(0) }
}

/// glibc's malloc_trim (not exported by the Glibc module).
@_silgen_name("malloc_trim")
func glibcMallocTrim(_ pad: Int) -> Int32

