import Dispatch
import Foundation

/// Wraps a pointer for handing disjoint parts of one buffer to worker threads.
struct UnsafeShared<T>: @unchecked Sendable { let base: UnsafeMutablePointer<T> }

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
/// device (device index mod threads), so each device's state lives on one thread and
/// the output is byte-identical whatever the thread count (DESIGN §3).
public final class EvaluationRun {
    public let compiled: CompiledFences
    public let evaluator: Evaluator
    public let threads: Int
    /// Per device, in order of first appearance.
    var trackers: [DeviceTracker] = []
    var workers: [Evaluator.Worker]
    public private(set) var fixes = 0

    public init(compiled: CompiledFences, settings: EvaluationSettings, threads: Int) {
        self.compiled = compiled
        self.evaluator = Evaluator(index: compiled.index, options: compiled.options, settings: settings)
        self.threads = max(1, threads)
        workers = Array(repeating: Evaluator.Worker(), count: max(1, threads))
    }

    /// Applies a batch of fixes (in log order). Devices are dense indices; the tracker table grows as needed.
    public func process(_ batch: [Fix]) {
        guard !batch.isEmpty else { return }
        var maxDevice: Int32 = -1
        for f in batch where f.device > maxDevice { maxDevice = f.device }
        if Int(maxDevice) >= trackers.count {
            trackers.append(contentsOf: repeatElement(DeviceTracker(), count: Int(maxDevice) + 1 - trackers.count))
        }
        fixes += batch.count
        let n = threads
        let ev = evaluator
        if n == 1 {
            trackers.withUnsafeMutableBufferPointer { t in
                for f in batch {
                    ev.process(device: f.device, time: f.time, lat: f.lat, lon: f.lon, accuracy: f.accuracy,
                               state: &t[Int(f.device)], worker: &workers[0])
                }
            }
            return
        }
        trackers.withUnsafeMutableBufferPointer { t in
            workers.withUnsafeMutableBufferPointer { w in
                let ts = UnsafeShared(base: t.baseAddress!), ws = UnsafeShared(base: w.baseAddress!)
                batch.withUnsafeBufferPointer { b in
                    let bs = UnsafeShared(base: UnsafeMutablePointer(mutating: b.baseAddress!))
                    let count = b.count
                    DispatchQueue.concurrentPerform(iterations: n) { k in
                        let worker = ws.base + k
                        for i in 0..<count {
                            let f = bs.base[i]
                            guard Int(f.device) % n == k else { continue }
                            ev.process(device: f.device, time: f.time, lat: f.lat, lon: f.lon, accuracy: f.accuracy,
                                       state: &ts.base[Int(f.device)], worker: &worker.pointee)
                        }
                    }
                }
            }
        }
    }

    /// Events of every device, devices in order of first appearance.
    public var events: [EvaluationEvent] { trackers.flatMap(\.events) }

    /// Event counts by type.
    public var eventCounts: [EventType: Int] {
        var c: [EventType: Int] = [:]
        for t in trackers { for e in t.events { c[e.type, default: 0] += 1 } }
        return c
    }

    public var deviceCount: Int { trackers.count }

    /// Writes every event in DESIGN §3 order.
    public func write(to sink: inout some TextSink, format: EventWriter.Format, deviceName: (Int32) -> String) throws(GeofenceError) {
        let writer = EventWriter(format: format, fences: compiled.fences)
        var out = writer.header ?? ""
        for (d, t) in trackers.enumerated() where !t.events.isEmpty {
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
