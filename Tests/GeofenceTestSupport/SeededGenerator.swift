import Foundation

/// A reproducible random number generator (SplitMix64), so property tests and benchmark
/// workloads replay exactly from their seed on any machine.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    /// A generator whose first output is SplitMix64's for `seed`.
    public init(seed: UInt64) { state = seed }

    /// The benchmark runner's seeding: the stream of `seed` one step ahead (its workloads
    /// keep the figures of earlier runs comparable).
    public init(benchmarkSeed seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

    /// The next 64 random bits.
    @inline(__always)
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1), 53 random bits.
    @inline(__always)
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Uniform in [lo, hi) (lo when they are equal).
    @inline(__always)
    public mutating func uniform(_ lo: Double, _ hi: Double) -> Double {
        lo == hi ? lo : Double.random(in: lo..<hi, using: &self)
    }

    /// Log-uniform in [lo, hi).
    public mutating func logUniform(_ lo: Double, _ hi: Double) -> Double {
        lo * Foundation.pow(hi / lo, uniform(0, 1))
    }

    /// Uniform in the range.
    public mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &self) }

    /// Uniform in 0..<n by one modulo (benchmark workloads; bias below 2⁻⁴⁰ for n < 2²⁴).
    @inline(__always)
    public mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { uniform(0, 1) < p }

    /// Standard normal (Box–Muller).
    public mutating func normal() -> Double {
        let u = Swift.max(unit(), 1e-300), v = unit()
        return (-2 * Foundation.log(u)).squareRoot() * Foundation.cos(2 * Double.pi * v)
    }
}
