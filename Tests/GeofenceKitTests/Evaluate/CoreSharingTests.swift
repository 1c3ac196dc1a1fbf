import Foundation
import XCTest
import GeofenceIndex
import GeofenceLogs
@testable import GeofenceEvaluation

/// ``CoreSharing``: each mode measured after the first batch, then the cheaper per fix kept
/// (the least of its last three counted costs), the other tried after 4 and 8 (while the two
/// are within ``CoreSharing/clearMargin``) and every ``CoreSharing/probeInterval`` counted batches; the batch after a change of mode not
/// counted; one slow batch does not change the choice; one thread never changes mode.
final class CoreSharingTests: XCTestCase {
    /// The modes chosen for batches costing `split` or `pipelined` seconds per fix; the first
    /// batch after a change costs `intoSplit` or `intoPipelined` instead when given (what a
    /// reader does: a round parsed ahead during a pipelined batch makes the split batch after it
    /// cheap; none parsed ahead during a split batch makes the pipelined one after it dear).
    /// `reading`: the share of each batch's seconds spent reading, when known.
    func modes(threads: Int, batches: Int, split: Double, pipelined: Double,
               intoSplit: Double? = nil, intoPipelined: Double? = nil, reading: Double? = nil) -> [CoreSharing.Mode] {
        var s = CoreSharing(threads: threads)
        var out: [CoreSharing.Mode] = []
        for b in 0..<batches {
            let mode = s.mode
            let changed = b > 0 && out.last != mode
            out.append(mode)
            let cost = mode == .split ? (changed ? intoSplit ?? split : split) : (changed ? intoPipelined ?? pipelined : pipelined)
            s.record(seconds: cost * 1000, reading: reading.map { $0 * cost * 1000 }, fixes: 1000)
        }
        return out
    }

    func testTheCheaperModeIsKeptAndTheOtherProbed() {
        let cheapPipeline = modes(threads: 2, batches: 40, split: 2e-7, pipelined: 1e-7)
        // Batch 0 warms up (not counted), 1 measures split, 2 changes to pipelined (not
        // counted), 3 measures it; then pipelined, and after the 4th and every 16th counted
        // batch a try of split: one batch not counted, one counted (the try after the 8th is
        // skipped: split costs twice as much, past `clearMargin`).
        XCTAssertEqual(Array(cheapPipeline[0..<4]), [.split, .split, .pipelined, .pipelined])
        let splits = cheapPipeline.indices.filter { $0 >= 4 && cheapPipeline[$0] == .split }
        XCTAssertEqual(splits, [6, 7, 20, 21, 38, 39], "\(cheapPipeline)")
        // Within the margin, the try after the 8th is made too.
        let close = modes(threads: 2, batches: 40, split: 1.2e-7, pipelined: 1e-7)
        XCTAssertEqual(close.indices.filter { $0 >= 4 && close[$0] == .split }, [6, 7, 12, 13, 22, 23], "\(close)")
        let cheapSplit = modes(threads: 2, batches: 40, split: 1e-7, pipelined: 3e-7)
        XCTAssertEqual(Array(cheapSplit[0..<4]), [.split, .split, .pipelined, .pipelined])
        let pipelines = cheapSplit.indices.filter { $0 >= 4 && cheapSplit[$0] == .pipelined }
        // Split is measured first but found cheaper only after pipelined is: batch 4 changes
        // back to it (not counted), so its tries come a batch later.
        XCTAssertEqual(pipelines, [7, 8, 21, 22, 39], "\(cheapSplit)")
    }

    /// While pipelined reads at least as long as it evaluates (every thread parses until the
    /// batch is read), split is not tried again; with the reading shorter, or unknown, it is.
    func testSplitIsNotTriedWhilePipelinedIsReadingBound() {
        let bound = modes(threads: 2, batches: 40, split: 1.1e-7, pipelined: 1e-7, reading: 0.6)
        XCTAssertEqual(Array(bound[0..<4]), [.split, .split, .pipelined, .pipelined])
        XCTAssertEqual(bound[4...].filter { $0 == .split }.count, 0, "\(bound)")
        // Reading just as long as evaluating is bound too; a little shorter is not.
        XCTAssertEqual(modes(threads: 2, batches: 40, split: 1.1e-7, pipelined: 1e-7, reading: 0.5)[4...].filter { $0 == .split }.count, 0)
        let evaluationBound = modes(threads: 2, batches: 40, split: 1.1e-7, pipelined: 1e-7, reading: 0.45)
        XCTAssertEqual(evaluationBound.indices.filter { $0 >= 4 && evaluationBound[$0] == .split }, [6, 7, 12, 13, 22, 23], "\(evaluationBound)")
        // Split cheaper: pipelined reading-bound or not, the run goes back to split and tries
        // pipelined as before.
        let cheapSplit = modes(threads: 2, batches: 40, split: 1e-7, pipelined: 3e-7, reading: 0.9)
        XCTAssertEqual(cheapSplit.indices.filter { $0 >= 4 && cheapSplit[$0] == .pipelined }, [7, 8, 21, 22, 39], "\(cheapSplit)")
    }

    /// While split's batches evaluate so long that one thread alone (at ``CoreSharing/oneThreadShare``
    /// of the threads' speed) would take longer than the whole batch, pipelined is not tried:
    /// not measured at first, not tried later; once the evaluation's share falls, it is.
    func testPipelinedIsNotTriedWhileSplitIsEvaluationBound() {
        // 2 threads, evaluating 70 % of each split batch: one thread would take 2 × 0.85 × 0.7
        // = 1.19 times the batch.
        let bound = modes(threads: 2, batches: 40, split: 1e-7, pipelined: 1.5e-7, reading: 0.3)
        XCTAssertEqual(Set(bound), [.split], "\(bound)")
        // 55 %: 0.94 times the batch; pipelined is measured after the first counted batch and
        // tried as before.
        let close = modes(threads: 2, batches: 40, split: 1e-7, pipelined: 1.5e-7, reading: 0.45)
        XCTAssertEqual(Array(close[0..<4]), [.split, .split, .pipelined, .pipelined])
        XCTAssertEqual(close.indices.filter { $0 >= 4 && close[$0] == .pipelined }, [7, 8, 21, 22, 39], "\(close)")
        // 4 threads: evaluating 30 % of the batch is bound already (4 × 0.85 × 0.3 = 1.02).
        XCTAssertEqual(Set(modes(threads: 4, batches: 40, split: 1e-7, pipelined: 1.5e-7, reading: 0.7)), [.split])

        // The log changes: evaluation-bound for 20 batches, then reading dominates and
        // pipelined, cheaper now, is measured and kept.
        var s = CoreSharing(threads: 2)
        var chosen: [CoreSharing.Mode] = []
        for b in 0..<40 {
            chosen.append(s.mode)
            let seconds = s.mode == .split ? 1e-4 : (b < 20 ? 1.5e-4 : 0.5e-4)
            s.record(seconds: seconds, reading: seconds * (b < 20 ? 0.3 : 0.8), fixes: 1000)
        }
        XCTAssertEqual(Set(chosen[0..<21]), [.split], "\(chosen)")
        XCTAssertEqual(chosen[39], .pipelined, "\(chosen)")
    }

    /// One pipelined batch of the last three that evaluated longer than it read lets split be
    /// tried (the test is on the least of the three).
    func testOneEvaluationBoundBatchAllowsTheTry() {
        var s = CoreSharing(threads: 2)
        var chosen: [CoreSharing.Mode] = []
        var pipelinedBatches = 0
        for _ in 0..<12 {
            chosen.append(s.mode)
            if s.mode == .split {
                s.record(seconds: 1.1e-4, reading: 0.5e-4, fixes: 1000)
            } else {
                pipelinedBatches += 1
                // The third counted pipelined batch (the fourth run pipelined) evaluates longer.
                s.record(seconds: 1e-4, reading: pipelinedBatches == 4 ? 0.3e-4 : 0.7e-4, fixes: 1000)
            }
        }
        XCTAssertEqual(Array(chosen[4..<8]), [.pipelined, .pipelined, .split, .split], "\(chosen)")
    }

    /// The batch after a change carries the other mode's work; counted, it would make the
    /// cheaper mode look dear whenever it is tried, and the run would stay in the dearer one.
    func testTheBatchAfterAChangeIsNotCounted() {
        let chosen = modes(threads: 2, batches: 60, split: 2e-7, pipelined: 1e-7, intoSplit: 0.5e-7, intoPipelined: 3e-7)
        XCTAssertEqual(chosen[4], .pipelined)
        // Four tries of the other mode in 60 batches (after 4, 16, 32 and 48 counted; not after
        // 8, the figures being twice apart), two batches each.
        XCTAssertGreaterThanOrEqual(chosen[4...].filter { $0 == .pipelined }.count, 46, "\(chosen)")
        let reversed = modes(threads: 2, batches: 60, split: 1e-7, pipelined: 2e-7, intoSplit: 3e-7, intoPipelined: 0.5e-7)
        XCTAssertEqual(reversed[4], .split)
        XCTAssertGreaterThanOrEqual(reversed[4...].filter { $0 == .split }.count, 46, "\(reversed)")
    }

    /// A batch slowed by other work on the machine (ten times its cost, once) leaves the choice
    /// as it was: the estimate is the least of the last three counted costs. An average (as
    /// this once kept) made the cheaper mode look dearer for the next sixteen batches.
    func testOneSlowBatchDoesNotChangeTheChoice() {
        var s = CoreSharing(threads: 2)
        var chosen: [CoreSharing.Mode] = []
        for b in 0..<40 {
            chosen.append(s.mode)
            var cost = s.mode == .split ? 1e-7 : 1.2e-7
            if b == 25 { cost *= 10 }
            s.record(seconds: cost * 1000, fixes: 1000)
        }
        XCTAssertEqual(chosen[25], .split)
        XCTAssertEqual(Array(chosen[26...]).filter { $0 == .pipelined }.count, 0, "\(chosen)")
    }

    /// The first counted cost of a mode comes from a cold start; the early tries measure it
    /// again, so a mode that looked dear only then is taken once it is measured warm.
    func testAColdFirstMeasureIsCorrectedEarly() {
        var s = CoreSharing(threads: 2)
        var chosen: [CoreSharing.Mode] = []
        var splitBatches = 0
        for _ in 0..<30 {
            chosen.append(s.mode)
            let cost: Double
            if s.mode == .split { splitBatches += 1; cost = splitBatches <= 2 ? 3e-7 : 1e-7 } else { cost = 1.2e-7 }
            s.record(seconds: cost * 1000, fixes: 1000)
        }
        XCTAssertEqual(chosen[3], .pipelined)
        // Split from the early try on (batches 6 and 7), but for the tries of pipelined after
        // the 8th and 16th counted batches (two batches each).
        XCTAssertEqual(chosen[8], .split)
        XCTAssertEqual(Array(chosen[10...]).filter { $0 == .split }.count, 16, "\(chosen)")
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
        // Pipelined but for the tries of split after the 4th, 16th and 32nd counted batches (two
        // batches each; none after the 8th, split costing twice as much).
        XCTAssertEqual(chosen[4..<40].filter { $0 == .pipelined }.count, 30, "\(chosen)")
        // From batch 40 on pipelined is dearer: its smoothed cost catches up within a batch or
        // two, then only the tries every 16 counted batches run it (two batches each).
        XCTAssertEqual(chosen[45], .split)
        let late = chosen.indices.filter { $0 >= 45 && chosen[$0] == .pipelined }
        XCTAssertEqual(late.count % 2, 0, "\(chosen)")
        XCTAssertLessThanOrEqual(late.count, 8, "\(chosen)")
        XCTAssertEqual(chosen[99], .split)
    }

    /// A pipelined batch is evaluated on the calling thread alone while the reader parses the
    /// next round; the log's last batch, with nothing parsed ahead, by every thread (in slices),
    /// as a split batch is: a pipelined last batch left the other threads idle. Events as at
    /// one thread.
    func testAPipelinedBatchWithNothingParsedAheadTakesEveryThread() throws {
        let dir = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/log.csv"
        var text = "device,time,lat,lon\n"
        for i in 0..<6_000 {
            // 20 devices crossing a 300 m circle back and forth.
            text += "d\(i % 20),\(1_700_000_000 + i),\(48.85 + Double((i / 20) % 40) * 2e-4),\(2.35 + Double(i % 20) * 1e-5)\n"
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let compiled = try CompiledFences([.circle(id: "c", lat: 48.852, lon: 2.35, radius: 300)])

        func events(threads: Int, sharing: Bool) throws -> (events: [EvaluationEvent], ahead: [Bool]) {
            let run = EvaluationRun(compiled: compiled, settings: EvaluationSettings(), threads: threads)
            run.minimumSlice = 64
            var options = LogReaderOptions()
            options.threads = threads
            options.parallelChunkSize = 4096
            options.readAhead = true
            let reader = try LogReader(path: path, options: options)
            var s = CoreSharing(threads: threads)
            // Split measured, then pipelined chosen: the mode kept from here (nothing more recorded).
            s.record(seconds: 1e-3, fixes: 1000)
            s.record(seconds: 1e-3, fixes: 1000)
            if sharing { XCTAssertEqual(s.mode, .pipelined) }
            var batch: [Fix] = [], ahead: [Bool] = []
            var all: [EvaluationEvent] = []
            while try reader.next(into: &batch, max: 1500) {
                let parsing = reader.isParsingAhead, before = run.batchesInSlices
                ahead.append(parsing)
                if sharing {
                    s.process(batch, with: run, reader: reader)
                    XCTAssertEqual(run.batchesInSlices - before, parsing ? 0 : 1, "batch \(ahead.count): parsing ahead \(parsing)")
                } else {
                    run.process(batch)
                }
                all += run.takeEvents()
            }
            return (all, ahead)
        }
        let two = try events(threads: 2, sharing: true)
        XCTAssertEqual(two.ahead.count, 4)
        XCTAssertEqual(two.ahead.last, false)
        XCTAssertTrue(two.ahead.dropLast().allSatisfy { $0 }, "\(two.ahead)")
        let one = try events(threads: 1, sharing: false)
        XCTAssertFalse(one.events.isEmpty)
        XCTAssertEqual(two.events, one.events)
        XCTAssertEqual(one.ahead, [false, false, false, false])
    }

    func testEmptyBatchesAndNegativeTimesAreIgnored() {
        var s = CoreSharing(threads: 2)
        s.record(seconds: 1, fixes: 0)
        s.record(seconds: -1, fixes: 10)
        XCTAssertEqual(s.mode, .split)
    }
}
