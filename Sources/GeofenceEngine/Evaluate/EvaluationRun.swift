import Dispatch
import Foundation
import Synchronization

/// Wraps a pointer for handing disjoint parts of one buffer to worker threads.
struct UnsafeShared<T>: @unchecked Sendable { let base: UnsafeMutablePointer<T> }

/// Hands out group numbers 0, 1, 2, ... to the workers of one batch.
final class GroupCounter: Sendable {
    private let value = Atomic<Int>(0)
    @inline(__always) func take() -> Int { value.wrappingAdd(1, ordering: .relaxed).oldValue }
}

/// What a run did: the summary DESIGN §3 and issue 4 ask for (stderr and `--summary`).
public struct EvaluationSummary: Sendable {
    public var fixes = 0
    public var devices = 0
    public var fences = 0
    public var events: [EventType: Int] = [:]
    public var skipped: [SkipReason: Int] = [:]
    public var threads = 1
    public var seconds = 0.0
    public var bytes: Int64 = 0

    public init() {}

    public var fixesPerSecond: Double { seconds > 0 ? Double(fixes) / seconds : 0 }

    public var json: JSONValue {
        .object([
            ("fixes", .number(Double(fixes))), ("devices", .number(Double(devices))), ("fences", .number(Double(fences))),
            ("events", .object(EventType.allCases.map { ($0.name, .number(Double(events[$0] ?? 0))) })),
            ("skipped", .object(skipped.sorted { $0.key < $1.key }.map { ($0.key.rawValue, .number(Double($0.value))) })),
            ("skipped_total", .number(Double(skipped.values.reduce(0, +)))),
            ("threads", .number(Double(threads))),
            ("seconds", .number((seconds * 1000).rounded() / 1000)),
            ("fixes_per_second", .number(fixesPerSecond.rounded())),
        ])
    }

    public var text: String {
        var s = "fixes \(fixes), devices \(devices), fences \(fences); events:"
        s += EventType.allCases.map { " \($0.name) \(events[$0] ?? 0)" }.joined(separator: ",")
        let sk = skipped.values.reduce(0, +)
        if sk > 0 {
            s += "; skipped \(sk) row\(sk == 1 ? "" : "s") ("
            s += skipped.sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ") + ")"
        }
        s += String(format: "; %.2f s, %.0f fixes/s, %d thread%@", seconds, fixesPerSecond, threads, threads == 1 ? "" : "s")
        return s
    }
}

/// Evaluates fixes against compiled fences with `threads` workers, partitioned by
/// device, so each device's state lives on one thread at a time and the output is
/// byte-identical whatever the thread count (DESIGN §3).
///
/// Devices are split into groups (device index mod the group count, several
/// groups per thread); each batch is partitioned by group once, and the
/// workers take groups from a shared counter until none is left, so a worker
/// whose core is busy with something else holds up little. Each group keeps
/// its devices' state in its own array: no two threads write near each other.
public final class EvaluationRun {
    public let compiled: CompiledFences
    public let evaluator: Evaluator
    public let threads: Int
    /// Groups (a power of two); device `d` is `groups[d & (groupCount - 1)][d >> groupShift]`.
    let groupCount: Int
    let groupShift: Int
    var groups: [[DeviceTracker]]
    /// Per group, the batch positions of its fixes (reused between batches).
    var partition: [[Int32]]
    var workers: [Evaluator.Worker]
    public private(set) var deviceCount = 0
    public private(set) var fixes = 0

    public init(compiled: CompiledFences, settings: EvaluationSettings, threads: Int) {
        self.compiled = compiled
        self.evaluator = Evaluator(index: compiled.index, options: compiled.options, settings: settings)
        self.threads = max(1, threads)
        var shift = 0
        if self.threads > 1 { while 1 << shift < 4 * self.threads { shift += 1 } }
        groupShift = shift
        groupCount = 1 << shift
        groups = Array(repeating: [], count: groupCount)
        partition = Array(repeating: [], count: groupCount)
        workers = Array(repeating: Evaluator.Worker(), count: self.threads)
    }

    /// The tracker of a device.
    @inline(__always)
    func tracker(_ d: Int) -> DeviceTracker { groups[d & (groupCount - 1)][d >> groupShift] }

    /// Applies a batch of fixes (in log order). Devices are dense indices; the tracker table grows as needed.
    public func process(_ batch: [Fix]) {
        guard !batch.isEmpty else { return }
        var maxDevice: Int32 = -1
        for f in batch where f.device > maxDevice { maxDevice = f.device }
        if Int(maxDevice) >= deviceCount {
            for d in deviceCount...Int(maxDevice) { groups[d & (groupCount - 1)].append(DeviceTracker()) }
            deviceCount = Int(maxDevice) + 1
        }
        fixes += batch.count
        let ev = evaluator
        if groupCount == 1 {
            groups[0].withUnsafeMutableBufferPointer { t in
                batch.withUnsafeBufferPointer { b in
                    for f in b {
                        ev.process(device: f.device, time: f.time, lat: f.lat, lon: f.lon, accuracy: f.accuracy,
                                   state: &t[Int(f.device)], worker: &workers[0])
                    }
                }
            }
            return
        }
        let mask = Int32(groupCount - 1)
        for g in 0..<groupCount { partition[g].removeAll(keepingCapacity: true) }
        batch.withUnsafeBufferPointer { b in
            for i in 0..<b.count { partition[Int(b[i].device & mask)].append(Int32(i)) }
        }
        let shift = groupShift, groupCount = groupCount
        let next = GroupCounter()
        groups.withUnsafeMutableBufferPointer { gs in
            partition.withUnsafeBufferPointer { ps in
                workers.withUnsafeMutableBufferPointer { ws in
                    batch.withUnsafeBufferPointer { b in
                        let shared = UnsafeShared(base: gs.baseAddress!), workerBase = UnsafeShared(base: ws.baseAddress!)
                        let parts = UnsafeShared(base: UnsafeMutablePointer(mutating: ps.baseAddress!))
                        let fixes = UnsafeShared(base: UnsafeMutablePointer(mutating: b.baseAddress!))
                        DispatchQueue.concurrentPerform(iterations: threads) { k in
                            let worker = workerBase.base + k
                            while true {
                                let g = next.take()
                                guard g < groupCount else { break }
                                (shared.base + g).pointee.withUnsafeMutableBufferPointer { t in
                                    parts.base[g].withUnsafeBufferPointer { idx in
                                        for i in idx {
                                            let f = fixes.base[Int(i)]
                                            ev.process(device: f.device, time: f.time, lat: f.lat, lon: f.lon, accuracy: f.accuracy,
                                                       state: &t[Int(f.device) >> shift], worker: &worker.pointee)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Events of every device, devices in order of first appearance.
    public var events: [EvaluationEvent] { (0..<deviceCount).flatMap { tracker($0).events } }

    /// Event counts by type.
    public var eventCounts: [EventType: Int] {
        var c: [EventType: Int] = [:]
        for g in groups { for t in g { for e in t.events { c[e.type, default: 0] += 1 } } }
        return c
    }

    /// Writes every event in DESIGN §3 order.
    public func write(to sink: inout some TextSink, format: EventWriter.Format, deviceName: (Int32) -> String) throws(GeofenceError) {
        let writer = EventWriter(format: format, fences: compiled.fences)
        var out = writer.header ?? ""
        for d in 0..<deviceCount {
            let t = tracker(d)
            if t.events.isEmpty { continue }
            let name = deviceName(Int32(d))
            for e in t.events {
                writer.line(e, device: name, into: &out)
                if out.utf8.count >= 1 << 16 {
                    try sink.write(out)
                    out.removeAll(keepingCapacity: true)
                }
            }
        }
        if !out.isEmpty { try sink.write(out) }
    }
}

/// Where text output goes: a file (written under a temporary name, renamed by `finish`) or stdout.
public protocol TextSink {
    mutating func write(_ s: String) throws(GeofenceError)
}

public struct FileSink: TextSink {
    let handle: FileHandle
    let path: String?
    let tmp: String?

    /// `nil` path: standard output.
    public init(path: String?) throws(GeofenceError) {
        guard let path, path != "-" else {
            handle = FileHandle.standardOutput; self.path = nil; tmp = nil
            return
        }
        if !AtomicFile.isRegularOrAbsent(path) {
            // /dev/null, /dev/stdout, a FIFO: write in place; renaming over a device would replace it.
            guard let h = FileHandle(forWritingAtPath: path) else { throw .io("\(path): cannot open for writing") }
            handle = h; self.path = nil; tmp = nil
            return
        }
        let t = AtomicFile.temporaryPath(for: path)
        guard FileManager.default.createFile(atPath: t, contents: nil), let h = FileHandle(forWritingAtPath: t) else {
            throw .io("\(path): cannot create output file (check the directory exists and is writable)")
        }
        handle = h; self.path = path; tmp = t
    }

    public mutating func write(_ s: String) throws(GeofenceError) {
        do { try handle.write(contentsOf: Data(s.utf8)) } catch {
            throw .io("\(path ?? "stdout"): write failed: \(error.localizedDescription)")
        }
    }

    /// Closes and renames into place.
    public func finish() throws(GeofenceError) {
        guard let path, let tmp else { return }
        do { try handle.close() } catch { throw .io("\(path): close failed: \(error.localizedDescription)") }
        try AtomicFile.commit(tmp, to: path)
    }

    /// Removes the temporary file after a failure.
    public func abandon() {
        guard let tmp else { return }
        try? handle.close()
        unlink(tmp)
    }
}
