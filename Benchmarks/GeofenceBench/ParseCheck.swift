import CFastDecimal
import Dispatch
import Foundation
import GeofenceBase
import GeofenceTestSupport

/// `--check-parse N`: the decimal parser (`DecimalParser`) bit for bit against `strtod` on the
/// adversarial set and N seeded random texts (`DecimalCorpus`), in chunks over every core;
/// then the parse time per number of ours and of `strtod` on coordinate-like and long texts.
enum ParseCheck {
    static let chunk = 100_000

    /// Prints the counts and times; 0 when every text agrees, 1 otherwise.
    static func run(count: Int, seed: UInt64) -> Int32 {
        let start = Clock.now()
        let adversarial = DecimalCorpus.adversarial()
        var badAdversarial: [String] = []
        for text in adversarial { if let m = DecimalCorpus.mismatch(text) { badAdversarial.append(m) } }
        let tally = Tally()
        for m in badAdversarial { tally.add(m) }
        checkRandom(count: count, seed: seed, into: tally, mismatch: DecimalCorpus.mismatch, decided: DecimalCorpus.takesFastPath)
        let mismatches = tally.mismatches, fast = tally.fast, examples = tally.examples
        let seconds = Double(Clock.now() - start) / 1e9
        print("check-parse: \(adversarial.count + count) texts (\(adversarial.count) adversarial + \(count) random, seed \(seed)), "
              + "\(mismatches) mismatches against strtod, \(String(format: "%.1f", seconds)) s on \(ProcessInfo.processInfo.activeProcessorCount) cores")
        print("check-parse: \(String(format: "%.3f", 100 * Double(fast) / Double(max(count, 1)))) % of the random texts decided without strtod")
        for m in examples { print("  mismatch: \(m)") }
        let plain = checkPlain(count: count, seed: seed, adversarial: adversarial)
        timing(seed: seed)
        return mismatches == 0 && plain == 0 ? 0 : 1
    }

    /// The CSV rows' C path (`geofence_plain_decimals`, CFastDecimal) on the plain numbers of
    /// the same sets, alone and four in a run (``DecimalCorpus/plainMismatch(_:)``), plus the
    /// plain numbers nearest the halfway points between doubles: every random text at the best
    /// level this CPU has, and the adversarial and nearest sets with the first million random
    /// texts at each level below it (the level is process-wide: one level per pass). Returns the
    /// mismatches.
    static func checkPlain(count: Int, seed: UInt64, adversarial: [String]) -> Int {
        let start = Clock.now()
        let best = Int(geofence_plain_decimals_level(-1))
        defer { geofence_plain_decimals_level(Int32(best)) }
        let near = DecimalCorpus.plainNearHalfway(perSide: 64)
        var total = 0, bad = 0, examples: [String] = []
        for level in stride(from: best, through: 1, by: -1) {
            geofence_plain_decimals_level(Int32(level))
            let random = level == best ? count : Swift.min(count, 1_000_000)
            let tally = Tally()
            for text in adversarial + near { if let m = DecimalCorpus.plainMismatch(text) { tally.add(m) } }
            checkRandom(count: random, seed: seed, into: tally, mismatch: DecimalCorpus.plainMismatch, decided: DecimalCorpus.plainDecides)
            let texts = adversarial.count + near.count + random
            total += texts
            bad += tally.mismatches
            if examples.count < 20 { examples += tally.examples.prefix(20 - examples.count) }
            print("check-parse: C row path, level \(level): \(texts) texts (\(adversarial.count) adversarial, \(near.count) nearest halfway points, "
                  + "\(random) random), \(tally.mismatches) mismatches against strtod; \(tally.fast) of the random texts decided there")
        }
        let seconds = Double(Clock.now() - start) / 1e9
        print("check-parse: C row path: \(total) texts at \(best) level\(best == 1 ? "" : "s"), \(bad) mismatches, \(String(format: "%.1f", seconds)) s")
        for m in examples { print("  mismatch: \(m)") }
        return bad
    }

    /// `count` seeded random texts (``DecimalCorpus/random(_:)``, the same for a seed whatever the
    /// check), in chunks over every core: each text's `mismatch` (nil: it agrees) and whether it
    /// was `decided` (counted in `fast`), added to `tally`.
    static func checkRandom(count: Int, seed: UInt64, into tally: Tally, mismatch: @escaping @Sendable (String) -> String?,
                            decided: @escaping @Sendable (String) -> Bool) {
        DispatchQueue.concurrentPerform(iterations: (count + chunk - 1) / chunk) { c in
            var g = SeededGenerator(seed: seed &+ UInt64(c) &* 0x9E37_79B9_7F4A_7C15)
            var bad: [String] = [], decidedHere = 0
            for _ in 0..<min(chunk, count - c * chunk) {
                let text = DecimalCorpus.random(&g)
                if let m = mismatch(text) { bad.append(m) }
                if decided(text) { decidedHere += 1 }
            }
            tally.lock.lock()
            for m in bad { tally.add(m) }
            tally.fast += decidedHere
            tally.lock.unlock()
        }
    }

    /// Counts shared by the chunks (under `lock`, or before they run).
    final class Tally: @unchecked Sendable {
        let lock = NSLock()
        var mismatches = 0, fast = 0
        var examples: [String] = []

        /// One mismatch, kept as an example among the first 20.
        func add(_ m: String) {
            mismatches += 1
            if examples.count < 20 { examples.append(m) }
        }
    }

    /// ns per number, ours and `strtod`, best of 5 passes over 1M texts of three kinds.
    static func timing(seed: UInt64) {
        var g = SeededGenerator(seed: seed)
        let kinds: [(String, () -> String)] = [
            ("coordinates, 7 decimals", { DecimalCorpus.format("%.7f", g.unit() * 360 - 180) }),
            ("17 significant digits (%.17g)", { DecimalCorpus.format("%.17g", g.unit() * 360 - 180) }),
            ("19 digits, exponents ±300", { "\(g.next() % 10_000_000_000_000_000_000 | 1)e\(g.int(600) - 300)" }),
        ]
        for (name, make) in kinds {
            let texts = (0..<1_000_000).map { _ in Array(make().utf8) + [0] }
            func best(_ body: ([UInt8]) -> Double) -> Double {
                var bestNs = UInt64.max
                for _ in 0..<5 {
                    var sum = 0.0
                    let t0 = Clock.now()
                    for t in texts { sum += body(t) }
                    bestNs = min(bestNs, Clock.now() - t0)
                    blackHole(sum)
                }
                return Double(bestNs) / Double(texts.count)
            }
            let ours = best { t in t.withUnsafeBufferPointer { DecimalParser.parse($0.baseAddress!, $0.count - 1) ?? 0 } }
            let reference = best { t in t.withUnsafeBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { strtod($0, nil) } } }
            print("check-parse: \(name): ours \(String(format: "%.1f", ours)) ns, strtod \(String(format: "%.1f", reference)) ns per number")
        }
    }
}
