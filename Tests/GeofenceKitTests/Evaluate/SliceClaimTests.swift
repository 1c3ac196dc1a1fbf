import Dispatch
import Foundation
import XCTest
import GeofenceTestSupport
@testable import GeofenceEvaluation

/// `SliceClaim` (the query phase's hand-out of a slice's sorted positions from both ends):
/// whatever the threads, the steps and the interleaving, every position of a published slice
/// is handed out exactly once, nothing before it is published or after it is reset.
final class SliceClaimTests: XCTestCase {
    func testEveryPositionOnceFromBothEnds() {
        let order = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        defer { order.deallocate() }
        var g = SeededGenerator(seed: 0xC1A1)
        let claim = SliceClaim()
        for count in [0, 1, 2, 63, 64, 65, 1_000, 32_768] {
            for _ in 0..<20 {
                claim.reset()
                XCTAssertNil(claim.back(64), "a slice not yet sorted is not helped")
                claim.publish(UnsafePointer(order), count: count)
                // The owner takes from the front, three helpers from the back, each with its own
                // step (1 to 100 positions), at the same time.
                let steps = (0..<4).map { _ in 1 + Int(g.next() % 100) }
                let taken = Taken(4)
                DispatchQueue.concurrentPerform(iterations: 4) { k in
                    while let r = k == 0 ? claim.front(steps[k]) : claim.back(steps[k]) {
                        XCTAssertLessThanOrEqual(r.count, steps[k])
                        XCTAssertFalse(r.isEmpty)
                        taken.add(k, r)
                    }
                }
                var seen = [Int](repeating: 0, count: count)
                for r in taken.all() { for p in r { seen[p] += 1 } }
                XCTAssertEqual(seen.filter { $0 != 1 }.count, 0, "count \(count), steps \(steps): a position taken twice or never")
                // The owner's ranges ascend from 0, a helper's descend to the end.
                XCTAssertEqual(taken.ranges[0].first?.lowerBound ?? 0, 0)
                XCTAssertNil(claim.front(1))
                XCTAssertNil(claim.back(1))
            }
        }
    }

    /// Ranges taken by each worker, guarded by a lock (the test's own bookkeeping).
    final class Taken: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var ranges: [[Range<Int>]]
        init(_ n: Int) { ranges = Array(repeating: [], count: n) }
        func add(_ k: Int, _ r: Range<Int>) { lock.lock(); ranges[k].append(r); lock.unlock() }
        func all() -> [Range<Int>] { lock.lock(); defer { lock.unlock() }; return ranges.flatMap { $0 } }
    }
}
