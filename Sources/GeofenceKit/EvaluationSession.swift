/// One fix handed over by a host: a device, a time and a position.
public struct DeviceFix: Hashable, Sendable {
    /// The device's identifier.
    public var device: String
    /// Unix seconds; each device's fixes must come in non-decreasing time.
    public var time: Double
    /// Latitude in degrees, [-90, 90].
    public var lat: Double
    /// Longitude in degrees, [-180, 180].
    public var lon: Double
    /// Horizontal accuracy in metres, finite and ≥ 0 (0: exact).
    public var accuracy: Double

    /// A fix with every field given.
    public init(device: String, time: Double, lat: Double, lon: Double, accuracy: Double = 0) {
        self.device = device; self.time = time; self.lat = lat; self.lon = lon; self.accuracy = accuracy
    }
}

/// Evaluation fed by the host, fix by fix or batch by batch (a service, a stream
/// consumer, a Spark partition), with the same semantics and the same events as
/// evaluating a log (docs/evaluation.md). Each call returns the events of the fixes it
/// was given, in the streaming order of `Geofencer.evaluate`.
///
/// Fixes are checked as a log reader checks rows (ranges, per-device time order,
/// duplicates) before any is applied: a call with a bad fix throws and changes nothing,
/// so a host can drop that fix and call again. Not thread-safe: one session per thread
/// of the host (it may use `threads` workers inside).
public final class EvaluationSession {
    let run: EvaluationRun
    /// Device names, index = dense device numbers, in order of first appearance.
    public let devices = DeviceTable()
    /// Per device, the time and position of its last accepted fix.
    var last: [(time: Double, lat: Double, lon: Double)] = []
    var batch: [Fix] = []

    init(compiled: CompiledFences, settings: EvaluationSettings, threads: Int) {
        run = EvaluationRun(compiled: compiled, settings: settings, threads: threads)
    }

    /// Everything needed to continue later, in another process or on another machine
    /// (docs/state.md): pass it to `Geofencer.session(restoring:...)`, or write
    /// `snapshot().encoded()` to a file.
    /// - Complexity: O(devices + fence states + fences).
    public func snapshot() -> EvaluationState {
        let devices = self.devices
        for (d, l) in last.enumerated() { devices.setLastFix(Int32(d), time: l.time, lat: l.lat, lon: l.lon) }
        return run.snapshot(devices: devices)
    }

    /// Continues from `state` (see `Geofencer.session(restoring:fences:settings:threads:)`).
    func restore(_ state: EvaluationState, changes: FenceChanges) {
        run.restore(state, changes: changes, devices: devices)
        last = state.devices.map { ($0.lastTime, $0.lastLat, $0.lastLon) }
    }

    /// Fixes evaluated so far.
    public var fixCount: Int { run.fixes }

    /// Evaluates one fix and returns its events.
    /// - Throws: as `apply(_:)`.
    public func apply(_ fix: DeviceFix) throws(GeofenceError) -> [Event] { try apply([fix]) }

    /// Evaluates fixes in order and returns their events: devices in order of first
    /// appearance, each device's events in time order, events of one fix by fence identifier.
    /// - Throws: `GeofenceError.input` with `invalidRecord` (reason: a log skip reason such as
    ///   `latitude_out_of_range`, `not_finite`, `negative_accuracy`, `time_backwards`,
    ///   `duplicate_fix`) naming the first bad fix's position in `fixes`; nothing is applied then.
    /// - Complexity: O(m log n) expected for m fixes over n fences (plus their events).
    public func apply(_ fixes: [DeviceFix]) throws(GeofenceError) -> [Event] {
        // Check everything first, against the devices' last fixes and the call's own.
        var pendingLast: [String: (time: Double, lat: Double, lon: Double)] = [:]
        for (k, f) in fixes.enumerated() {
            func fail(_ reason: SkipReason, _ message: String) -> GeofenceError {
                .input(InputError(SourceLocation(file: ""), .invalidRecord(reason: reason.rawValue),
                                  "fix \(k) (device \"\(f.device)\"): \(message)"))
            }
            if let (reason, message) = problem(f) { throw fail(reason, message) }
            let p = pendingLast[f.device] ?? devices.index(of: f.device).map { last[Int($0)] }
            if let p {
                if f.time < p.time { throw fail(.timeBackwards, "time \(f.time) is before the device's previous fix at \(p.time)") }
                if f.time == p.time && f.lat == p.lat && f.lon == p.lon {
                    throw fail(.duplicateFix, "same time and position as the device's previous fix")
                }
            }
            pendingLast[f.device] = (f.time, f.lat, f.lon)
        }
        batch.removeAll(keepingCapacity: true)
        for f in fixes {
            let d = devices.intern(f.device)
            if Int(d) >= last.count { last.append((-.infinity, .nan, .nan)) }
            last[Int(d)] = (f.time, f.lat, f.lon)
            batch.append(Fix(device: d, time: f.time, lat: f.lat, lon: f.lon, accuracy: f.accuracy))
        }
        guard !batch.isEmpty else { return [] }
        run.process(batch)
        let compiled = run.compiled
        return run.takeEvents().map { e in
            Event(e, device: devices.name(e.device), fence: compiled.index.identifier(of: e.fence),
                  note: compiled.optionTable.note(of: Int(e.fence)))
        }
    }

    /// Why a fix is unusable, as a log reader would say it; nil when it is fine.
    func problem(_ f: DeviceFix) -> (SkipReason, String)? {
        if f.device.isEmpty { return (.emptyDevice, "empty device id") }
        if !f.time.isFinite || !f.lat.isFinite || !f.lon.isFinite || !f.accuracy.isFinite {
            return (.notFinite, "time, latitude, longitude and accuracy must be finite")
        }
        if f.lat < -90 || f.lat > 90 { return (.latitudeOutOfRange, "latitude \(f.lat) is out of range [-90, 90]") }
        if f.lon < -180 || f.lon > 180 { return (.longitudeOutOfRange, "longitude \(f.lon) is out of range [-180, 180]") }
        if f.accuracy < 0 { return (.negativeAccuracy, "accuracy \(f.accuracy) is negative") }
        if f.time < LogTime.earliest || f.time > LogTime.latest { return (.badTime, "time \(f.time) is outside the years 0001 to 9999") }
        return nil
    }
}
