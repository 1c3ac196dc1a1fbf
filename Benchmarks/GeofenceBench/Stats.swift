import GeofenceKit
import GeofenceTestSupport
/// Latency percentiles and throughput of one timed query loop.
struct QueryStats {
    /// Queries answered per second of the thread's CPU time (median over repeats).
    var perSecond: Double
    /// Queries per second of wall-clock time (median over repeats); lower when other
    /// processes take the CPU.
    var wallPerSecond: Double
    /// Fraction of timed groups whose time was corrected for a deschedule (see `timeQueries`).
    var discarded: Double
    /// Per-query latency percentiles in nanoseconds (median over repeats).
    var p50: Double
    var p90: Double
    var p99: Double
    /// Queries per timed group (1 = each query timed alone).
    var group: Int
    /// Queries timed per repeat, and repeats.
    var queries: Int
    var repeats: Int
}

enum Stats {
    /// The q-quantile (0...1) of sorted values, nearest rank.
    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let k = min(sorted.count - 1, max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[k]
    }

    static func median(_ xs: [Double]) -> Double {
        guard !xs.isEmpty else { return .nan }
        let s = xs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// Least-squares slope of log(y) against log(x): the scaling exponent (cost ~ x^slope).
    static func logLogSlope(_ points: [(x: Double, y: Double)]) -> Double? {
        let p = points.filter { $0.x > 0 && $0.y > 0 }
        guard p.count >= 2 else { return nil }
        let lx = p.map { Glibc.log($0.x) }, ly = p.map { Glibc.log($0.y) }
        let mx = lx.reduce(0, +) / Double(p.count), my = ly.reduce(0, +) / Double(p.count)
        var num = 0.0, den = 0.0
        for i in 0..<p.count { num += (lx[i] - mx) * (ly[i] - my); den += (lx[i] - mx) * (lx[i] - mx) }
        return den > 0 ? num / den : nil
    }
}

import Glibc

/// Times a query loop: a warm-up pass, then `repeats` passes over `count`
/// queries. Each pass times groups of `group` consecutive queries (one clock
/// read per group; per-query latency = group time / group), so queries much
/// shorter than the clock's ~30 ns cost are still measured fairly. The group
/// is chosen so that a group lasts at least `minGroupNanos`, from the warm-up.
///
/// The machine is shared: another process can take the CPU in the middle of a
/// query, and the wall clock then charges the query milliseconds of waiting.
/// So groups are gathered into windows of about `windowNanos`; each window
/// also reads the thread's CPU clock, and a window whose wall time exceeds its
/// CPU time by more than max(10 µs, 2 %) was descheduled: the off-CPU gap is
/// taken off its slowest group (counted in `discarded`, the share of groups so
/// corrected). Throughput is queries per second of thread CPU time
/// (`perSecond`), with the wall-clock figure kept alongside (`wallPerSecond`).
///
/// `body(i)` answers query `i` and must itself `precondition` that the answer
/// is right (see the suites); it returns a value folded into the black hole.
@inline(__always)
func timeQueries(count: Int, repeats: Int, minGroupNanos: Double = 2_000, maxGroup: Int = 64,
                 windowNanos: Double = 200_000, warmup: Int? = nil, _ body: (Int) -> Int) -> QueryStats {
    precondition(count > 0)
    var sink = 0
    // Warm-up (also calibrates the group size).
    let w = min(count, warmup ?? max(1, count / 4))
    let t0 = Clock.now()
    for i in 0..<w { sink &+= body(i) }
    let perQuery = Double(Clock.now() - t0) / Double(w)
    let group = max(1, min(maxGroup, Int((minGroupNanos / max(perQuery, 1)).rounded(.up))))

    let window = max(1, Int((windowNanos / max(perQuery * Double(group), 1)).rounded(.up))) * group

    var rates: [Double] = [], wallRates: [Double] = [], p50s: [Double] = [], p90s: [Double] = [], p99s: [Double] = []
    var samples = [Double](), pending = [Double]()
    samples.reserveCapacity(count / group + 1)
    pending.reserveCapacity(window / group + 1)
    var dropped = 0, timed = 0
    for _ in 0..<repeats {
        samples.removeAll(keepingCapacity: true)
        var wallTotal: UInt64 = 0, cpuTotal: UInt64 = 0
        var i = 0
        while i < count {
            let we = min(count, i + window)
            pending.removeAll(keepingCapacity: true)
            let c0 = Clock.threadCPU()
            let w0 = Clock.now()
            while i < we {
                let e = min(we, i + group)
                let g0 = Clock.now()
                for k in i..<e { sink &+= body(k) }
                let g1 = Clock.now()
                pending.append(Double(g1 - g0) / Double(e - i))
                i = e
            }
            let w1 = Clock.now()
            let c1 = Clock.threadCPU()
            let wall = w1 - w0, cpu = c1 - c0
            wallTotal += wall
            cpuTotal += min(cpu, wall)
            let gap = Double(wall) - Double(cpu)
            if gap > max(10_000, Double(wall) * 0.02), let worst = pending.indices.max(by: { pending[$0] < pending[$1] }) {
                // Descheduled: charge the off-CPU gap to the slowest group of the window (a time
                // slice of another process lasts milliseconds, so one preemption per window).
                let floor = pending.min() ?? 0
                pending[worst] = max(floor, pending[worst] - gap / Double(group))
                dropped += 1
            }
            samples.append(contentsOf: pending)
            timed += pending.count
        }
        rates.append(Double(count) / (Double(max(cpuTotal, 1)) / 1e9))
        wallRates.append(Double(count) / (Double(max(wallTotal, 1)) / 1e9))
        samples.sort()
        p50s.append(Stats.quantile(samples, 0.5))
        p90s.append(Stats.quantile(samples, 0.9))
        p99s.append(Stats.quantile(samples, 0.99))
    }
    blackHole(sink)
    return QueryStats(perSecond: Stats.median(rates), wallPerSecond: Stats.median(wallRates),
                      discarded: timed > 0 ? Double(dropped) / Double(timed) : 0, p50: Stats.median(p50s), p90: Stats.median(p90s),
                      p99: Stats.median(p99s), group: group, queries: count, repeats: repeats)
}

/// Point-query timings of a brute force (on its first `sampled` queries) and of
/// the index (on all), each checked inside the loop against `expected`, the
/// fingerprints of the index's answers taken before timing.
func timeContainment(index: FenceIndex, queries q: [Point], expected: [UInt64], sampled: Int, repeats: Int,
                     brute: (Point, inout [Int32]) -> Void) -> (brute: QueryStats, ours: QueryStats) {
    var buf: [Int32] = []
    buf.reserveCapacity(256)
    let b = timeQueries(count: sampled, repeats: repeats) { i in
        brute(q[i], &buf)
        precondition(Fingerprint.set(buf) == expected[i], "index and brute force disagree at query \(i) \(q[i])")
        return buf.count
    }
    let o = timeQueries(count: q.count, repeats: repeats) { i in
        index.containing(lat: q[i].lat, lon: q[i].lon, into: &buf)
        precondition(Fingerprint.set(buf) == expected[i], "index answer changed at query \(i)")
        return buf.count
    }
    return (b, o)
}
