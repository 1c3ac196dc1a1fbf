/// The events of location logs, evaluated batch by batch as they are iterated
/// (`Geofencer.evaluate`). Memory stays bounded by the fences, the per-device state
/// and one batch: events are handed out as they are found, never accumulated.
///
/// Iterate with `for event in stream` (a failure ends the iteration and is kept in
/// `error`) or call `nextEvent()`, which throws it. After the end, `summary` has the
/// counts of the whole run.
public final class EventStream: Sequence, IteratorProtocol {
    let run: EvaluationRun
    let logs: [String]
    let options: LogReaderOptions
    let batchSize: Int
    /// Device names, index = the events' dense device numbers.
    public let devices: DeviceTable
    var reader: LogReader?
    var nextLog = 0
    var batch: [Fix] = []
    var pending: [EvaluationEvent] = []
    var position = 0
    var finished = false
    /// How reading and evaluating share the run's threads, batch by batch (docs/evaluation.md#sharing-the-cores).
    var sharing: CoreSharing
    /// The error that ended the stream, if any (`next()` returns nil from then on).
    public private(set) var error: GeofenceError?
    /// What the run did so far: fixes, devices, events by type, skipped rows by reason, bytes.
    public private(set) var summary = EvaluationSummary()

    init(compiled: CompiledFences, logs: [String], options: LogReaderOptions, settings: EvaluationSettings,
         threads: Int, batchSize: Int) throws(GeofenceError) {
        precondition(batchSize >= 1, "a batch holds at least one fix")
        run = EvaluationRun(compiled: compiled, settings: settings, threads: threads)
        sharing = CoreSharing(threads: threads)
        self.logs = logs
        var options = options
        // The run's threads read the logs too (the fixes do not depend on it).
        options.threads = Swift.max(options.threads, threads)
        self.options = options
        self.batchSize = batchSize
        devices = DeviceTable()
        summary.threads = Swift.max(1, threads)
        summary.fences = compiled.index.count
        batch.reserveCapacity(batchSize)
        if let first = logs.first {
            reader = try LogReader(path: first, options: options, devices: devices)
            nextLog = 1
        }
    }

    /// The next event, nil at the end of the logs or after a failure (see `error`).
    public func next() -> Event? {
        do { return try nextEvent() } catch {
            self.error = error
            return nil
        }
    }

    /// The next event, nil at the end of the logs.
    /// - Throws: `GeofenceError.input` for a log that cannot be opened or read, or a bad row
    ///   in strict mode (`invalidRecord` with the row's skip reason).
    /// - Complexity: amortized O(1) per event plus the evaluation of the batch it comes from.
    public func nextEvent() throws(GeofenceError) -> Event? {
        if let error { throw error }
        while position == pending.count {
            if finished { return nil }
            do { try fill() } catch {
                self.error = error
                finished = true
                throw error
            }
        }
        let e = pending[position]
        position += 1
        let compiled = run.compiled
        return Event(e, device: devices.name(e.device), fence: compiled.index.identifier(of: e.fence),
              note: compiled.optionTable.note(of: Int(e.fence)))
    }

    /// Every remaining event.
    /// - Throws: as `nextEvent()`.
    public func collect() throws(GeofenceError) -> [Event] {
        var out: [Event] = []
        while let e = try nextEvent() { out.append(e) }
        return out
    }

    /// Reads and evaluates the next batch (moving to the next log at the end of one).
    func fill() throws(GeofenceError) {
        pending.removeAll(keepingCapacity: true)
        position = 0
        while let r = reader {
            batch.removeAll(keepingCapacity: true)
            // Timed from here: the consumer's time between batches is not the run's.
            sharing.startClock()
            sharing.prepare(r)
            let more = try r.next(into: &batch, max: batchSize)
            if !batch.isEmpty {
                sharing.process(batch, with: run, reader: r)
                sharing.record(fixes: batch.count)
                pending = run.takeEvents()
                for e in pending { summary.events[e.type, default: 0] += 1 }
                summary.fixes = run.fixes
                summary.devices = run.devicesWithFixes
            }
            if !more {
                for (k, v) in r.skipped { summary.skipped[k, default: 0] += v }
                summary.bytes += r.bytesRead
                summary.noteReading(r.reading)
                summary.noteGzipMembers(r.gzipMembers)
                if nextLog < logs.count {
                    reader = try LogReader(path: logs[nextLog], options: options, devices: devices)
                    nextLog += 1
                } else {
                    reader = nil
                }
            }
            if !pending.isEmpty { return }
        }
        finished = true
    }
}
