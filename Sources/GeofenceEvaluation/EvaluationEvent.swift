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
/// Compact (40 bytes) because a run keeps every event until it writes them in
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
    /// Time of the fix, Unix seconds.
    public var time: Double
    /// Latitude of the fix, degrees.
    public var lat: Double
    /// Longitude of the fix, degrees.
    public var lon: Double

    /// An event with every field given.
    public init(device: Int32, fence: Int32, type: EventType, initial: Bool, time: Double, lat: Double, lon: Double) {
        self.device = device; self.fence = fence; self.type = type; self.initial = initial
        self.time = time; self.lat = lat; self.lon = lon
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

    /// An event with every field given.
    public init(device: String, fence: String, type: EventType, initial: Bool, time: Double, lat: Double, lon: Double, note: String? = nil) {
        self.device = device; self.fence = fence; self.type = type; self.initial = initial
        self.time = time; self.lat = lat; self.lon = lon; self.note = note
    }
}
