import GeofenceBase
import Dispatch

/// Something a worker may use though its type does not say it is `Sendable`: here objects only
/// read while the workers run (the run's trackers, the writer, the device names).
struct ReadOnlyShared<T>: @unchecked Sendable {
    let value: T
}

extension EvaluationRun {
    /// Events per block formatted by one worker at a time, at most; fewer when the events
    /// held are fewer than ``formatBlockEvents`` for each of four blocks a worker (so that every
    /// worker has blocks), but not below ``minimumFormatBlockEvents``.
    static let formatBlockEvents = 1 << 14
    static let minimumFormatBlockEvents = 1 << 9

    /// Formats the events held for every device on the workers and appends the text to `out`
    /// in output order (devices in index order, each device's events in time order), calling
    /// `flush` after each block: blocks of whole devices with about ``formatBlockEvents``
    /// events (fewer when few are held), a few per worker at a time, so the text in memory stays small (`flush` writes
    /// `out` and empties it when it has grown enough). Adds the event counts by type to `counts`.
    func formatHeldEvents(_ writer: EventWriter, deviceName: (Int32) -> String, counts: inout [Int],
                          into out: inout [UInt8], _ flush: (inout [UInt8]) throws(GeofenceError) -> Void) throws(GeofenceError) {
        let perRound = 4 * threads
        let blockEvents = Swift.max(Self.minimumFormatBlockEvents, Swift.min(Self.formatBlockEvents, heldEvents / perRound))
        var d = 0
        formattedBlocks = 0
        var ranges: [Range<Int>] = []
        while d < deviceCount {
            ranges.removeAll(keepingCapacity: true)
            while ranges.count < perRound && d < deviceCount {
                let s = d
                var n = 0
                repeat {
                    n += tracker(d).events.count
                    d += 1
                } while d < deviceCount && n + tracker(d).events.count <= blockEvents
                ranges.append(s..<d)
            }
            formattedBlocks += ranges.count
            var texts = [[UInt8]](repeating: [], count: ranges.count)
            var blockCounts = [Int](repeating: 0, count: 3 * ranges.count)
            withoutActuallyEscaping(deviceName) { deviceName in
                let shared = ReadOnlyShared(value: (run: self, writer: writer, name: deviceName, ranges: ranges))
                texts.withUnsafeMutableBufferPointer { t in
                    blockCounts.withUnsafeMutableBufferPointer { c in
                        let textOut = UnsafeShared(base: t.baseAddress!), countOut = UnsafeShared(base: c.baseAddress!)
                        WorkTeam.shared.concurrentPerform(iterations: ranges.count) { k in
                            let v = shared.value
                            let writer = v.writer.withOwnCount()
                            var text: [UInt8] = []
                            for device in v.ranges[k] {
                                let events = v.run.tracker(device).events
                                if events.isEmpty { continue }
                                let name = v.name(Int32(device))
                                for e in events {
                                    countOut.base[3 * k + Int(e.type.rawValue)] += 1
                                    writer.line(e, device: name, into: &text)
                                }
                            }
                            textOut.base[k] = text
                        }
                    }
                }
            }
            for k in texts.indices {
                let n = blockCounts[3 * k] + blockCounts[3 * k + 1] + blockCounts[3 * k + 2]
                writer.joinBlock(texts[k], events: n, into: &out)
                try flush(&out)
                for j in 0..<3 { counts[j] += blockCounts[3 * k + j] }
            }
        }
    }
}
