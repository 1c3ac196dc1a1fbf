import GeofenceBase
import GeofenceIndex
import GeofenceLogs

/// The kind of an evaluation event (docs/evaluation.md).
public enum EventType: UInt8, Sendable, Hashable, CaseIterable {
    /// The device's state for the fence became inside (outside → inside, or the first determination).
    case enter = 0
    /// The device's state for the fence became outside (inside → outside).
    case exit = 1
    /// The device has been inside the fence for its dwell time (once per visit).
    case dwell = 2

    /// The name written in event records: `enter`, `exit`, `dwell`.
    public var name: String {
        switch self {
        case .enter: return "enter"
        case .exit: return "exit"
        case .dwell: return "dwell"
        }
    }
}

/// One event: a device entered, left or dwelt in a fence at a fix.
/// Compact (48 bytes) because a run keeps every event until it writes them in
/// docs/evaluation.md order (devices by first appearance, then time, then fence identifier).
public struct EvaluationEvent: Sendable, Hashable {
    /// Dense device index (the log readers' `DeviceTable`).
    public var device: Int32
    /// Fence slot in the compiled fence set.
    public var fence: Int32
    /// Enter, exit or dwell.
    public var type: EventType
    /// First determination of the device's state for this fence (`enter` only).
    public var initial: Bool
    /// The UTC offset the log wrote the fix's time with, minutes east (``Fix/offset``); in
    /// what would otherwise be padding.
    public var offset: Int16 = 0
    /// The fix's horizontal accuracy, metres (0: the log has none); single precision, in
    /// what would otherwise be padding.
    public var accuracy: Float
    /// Time of the fix, Unix seconds.
    public var time: Double
    /// Latitude of the fix, degrees.
    public var lat: Double
    /// Longitude of the fix, degrees.
    public var lon: Double
    /// For `dwell` and `exit`: seconds since the fix that started the visit (the `enter`
    /// fix, or the first fix inside); NaN for `enter`.
    public var duration: Double

    /// An event with every field given.
    public init(device: Int32, fence: Int32, type: EventType, initial: Bool, time: Double, lat: Double, lon: Double,
                accuracy: Float = 0, duration: Double = .nan, offset: Int16 = 0) {
        self.device = device; self.fence = fence; self.type = type; self.initial = initial
        self.offset = offset
        self.accuracy = accuracy
        self.time = time; self.lat = lat; self.lon = lon; self.duration = duration
    }

    /// Equal when every field is, durations compared bit for bit (NaN equals NaN).
    public static func == (a: EvaluationEvent, b: EvaluationEvent) -> Bool {
        a.device == b.device && a.fence == b.fence && a.type == b.type && a.initial == b.initial && a.accuracy == b.accuracy
            && a.offset == b.offset
            && a.time == b.time && a.lat == b.lat && a.lon == b.lon && a.duration.bitPattern == b.duration.bitPattern
    }

    /// Hashes what `==` compares.
    public func hash(into h: inout Hasher) {
        h.combine(device); h.combine(fence); h.combine(type); h.combine(initial); h.combine(accuracy); h.combine(offset)
        h.combine(time); h.combine(lat); h.combine(lon); h.combine(duration.bitPattern)
    }
}

/// An event as a caller sees it: device and fence by name, with the fence's note.
public struct Event: Sendable, Hashable {
    /// The device's identifier as the log (or the caller) gave it.
    public var device: String
    /// The fence's identifier.
    public var fence: String
    /// Enter, exit or dwell.
    public var type: EventType
    /// The first determination of the device's state for this fence (`enter` only).
    public var initial: Bool
    /// Time of the fix, Unix seconds.
    public var time: Double
    /// Latitude of the fix, degrees.
    public var lat: Double
    /// Longitude of the fix, degrees.
    public var lon: Double
    /// The fence's `note` option, if any.
    public var note: String?
    /// The fix's horizontal accuracy in metres; nil when the log has none.
    public var accuracy: Double?
    /// For `dwell` and `exit`: seconds since the fix that started the visit; nil for `enter`.
    public var duration: Double?
    /// The UTC offset the log wrote the fix's time with, minutes east (0: UTC).
    public var offset: Int16

    /// An event with every field given.
    public init(device: String, fence: String, type: EventType, initial: Bool, time: Double, lat: Double, lon: Double, note: String? = nil,
                accuracy: Double? = nil, duration: Double? = nil, offset: Int16 = 0) {
        self.offset = offset
        self.device = device; self.fence = fence; self.type = type; self.initial = initial
        self.time = time; self.lat = lat; self.lon = lon; self.note = note
        self.accuracy = accuracy; self.duration = duration
    }

    /// A run's compact event with names: the accuracy as the log gave it (nil for none), the
    /// duration to the millisecond.
    public init(_ e: EvaluationEvent, device: String, fence: String, note: String?) {
        self.init(device: device, fence: fence, type: e.type, initial: e.initial, time: e.time, lat: e.lat, lon: e.lon, note: note,
                  accuracy: EvaluationEvent.accuracyValue(e.accuracy), duration: EvaluationEvent.durationValue(e.duration), offset: e.offset)
    }
}

extension EvaluationEvent {
    /// A stored accuracy as output: the shortest decimal of the single-precision value read
    /// back as a double (`4.7`, not `4.699999809`); nil for 0 (none).
    static func accuracyValue(_ a: Float) -> Double? {
        a > 0 ? Double(a.description) ?? Double(a) : nil
    }

    /// A duration as output: rounded to the millisecond; nil for NaN (an `enter`).
    static func durationValue(_ d: Double) -> Double? {
        d.isNaN ? nil : (d * 1000).rounded() / 1000
    }
}
