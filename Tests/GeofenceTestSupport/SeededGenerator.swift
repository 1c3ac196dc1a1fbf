/// A reproducible random number generator (SplitMix64), so property tests
/// replay exactly from their seed.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    public mutating func uniform(_ lo: Double, _ hi: Double) -> Double {
        lo == hi ? lo : Double.random(in: lo..<hi, using: &self)
    }

    /// Log-uniform in [lo, hi).
    public mutating func logUniform(_ lo: Double, _ hi: Double) -> Double {
        lo * (hi / lo).squareRootPow(uniform(0, 1))
    }

    public mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &self) }
    public mutating func chance(_ p: Double) -> Bool { uniform(0, 1) < p }
}

extension Double {
    fileprivate func squareRootPow(_ e: Double) -> Double { Foundation.pow(self, e) }
}

import Foundation
