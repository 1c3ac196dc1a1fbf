import XCTest
@testable import GeofenceEvaluation

/// ``CoreSharing``: each mode tried once after the first batch, then the cheaper per fix kept,
/// the other tried every ``CoreSharing/probeInterval`` batches; one thread never changes mode.
final class CoreSharingTests: XCTestCase {
    /// The modes chosen for batches costing `split` or `pipelined` seconds per fix.
    func modes(threads: Int, batches: Int, split: Double, pipelined: Double) -> [CoreSharing.Mode] {
        var s = CoreSharing(threads: threads)
        var out: [CoreSharing.Mode] = []
        for _ in 0..<batches {
            out.append(s.mode)
            s.record(seconds: (s.mode == .split ? split : pipelined) * 1000, fixes: 1000)
        }
        return out
    }

    func testTheCheaperModeIsKeptAndTheOtherProbed() {
        let cheapPipeline = modes(threads: 2, batches: 40, split: 2e-7, pipelined: 1e-7)
        // Batch 0 warms up (not counted), 1 measures split, 2 tries pipelined, then pipelined
        // but every 16th recorded batch.
        XCTAssertEqual(Array(cheapPipeline[0..<3]), [.split, .split, .pipelined])
        let splits = cheapPipeline.indices.filter { $0 >= 3 && cheapPipeline[$0] == .split }
        XCTAssertEqual(splits, [17, 33])
        let cheapSplit = modes(threads: 2, batches: 40, split: 1e-7, pipelined: 3e-7)
        XCTAssertEqual(Array(cheapSplit[0..<3]), [.split, .split, .pipelined])
        let pipelines = cheapSplit.indices.filter { $0 >= 3 && cheapSplit[$0] == .pipelined }
        XCTAssertEqual(pipelines, [17, 33])
    }

    func testOneThreadStaysSplit() {
        XCTAssertEqual(Set(modes(threads: 1, batches: 20, split: 5e-7, pipelined: 1e-7)), [.split])
    }

    func testAChangeAlongTheLogIsFollowed() {
        var s = CoreSharing(threads: 4)
        var chosen: [CoreSharing.Mode] = []
        // Pipelined is cheaper for 40 batches, then split is.
        for b in 0..<100 {
            chosen.append(s.mode)
            let cost = b < 40 ? (s.mode == .split ? 2e-7 : 1e-7) : (s.mode == .split ? 1e-7 : 4e-7)
            s.record(seconds: cost * 500, fixes: 500)
        }
        XCTAssertEqual(chosen[20], .pipelined)
        XCTAssertEqual(chosen.indices.filter { $0 >= 60 && chosen[$0] == .pipelined }, [65, 81, 97], "\(chosen)")
        XCTAssertEqual(chosen[99], .split)
    }

    func testEmptyBatchesAndNegativeTimesAreIgnored() {
        var s = CoreSharing(threads: 2)
        s.record(seconds: 1, fixes: 0)
        s.record(seconds: -1, fixes: 10)
        XCTAssertEqual(s.mode, .split)
    }
}
