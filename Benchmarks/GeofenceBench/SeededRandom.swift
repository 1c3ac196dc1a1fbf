import GeofenceKit
import GeofenceTestSupport
/// A small, fast, seeded generator (SplitMix64, Steele et al. 2014): every
/// workload is reproducible from its seed on any machine.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

    @inline(__always)
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    @inline(__always)
    mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Uniform in [a, b).
    @inline(__always)
    mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * unit() }

    /// Uniform integer in 0..<n.
    @inline(__always)
    mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// Standard normal (Box–Muller).
    mutating func normal() -> Double {
        let u = max(unit(), 1e-300), v = unit()
        return (-2 * _log(u)).squareRoot() * _cos(2 * Double.pi * v)
    }

    /// Log-uniform in [a, b).
    mutating func logUniform(_ a: Double, _ b: Double) -> Double { a * _exp(_log(b / a) * unit()) }
}

import Glibc
@inline(__always) private func _log(_ x: Double) -> Double { Glibc.log(x) }
@inline(__always) private func _cos(_ x: Double) -> Double { Glibc.cos(x) }
@inline(__always) private func _exp(_ x: Double) -> Double { Glibc.exp(x) }
