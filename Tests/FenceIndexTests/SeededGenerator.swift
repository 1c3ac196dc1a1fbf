/// A reproducible random number generator (SplitMix64), so property tests
/// replay exactly from their seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    mutating func uniform(_ lo: Double, _ hi: Double) -> Double {
        Double.random(in: lo..<hi, using: &self)
    }

    /// Log-uniform in [lo, hi).
    mutating func logUniform(_ lo: Double, _ hi: Double) -> Double {
        lo * (hi / lo).squareRootPow(uniform(0, 1))
    }

    mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func chance(_ p: Double) -> Bool { uniform(0, 1) < p }
}

extension Double {
    fileprivate func squareRootPow(_ e: Double) -> Double { Foundation.pow(self, e) }
}

import Foundation
