import GeofenceBase
import GeofenceIndex
import GeofenceLogs

/// The kind of an evaluation event (docs/evaluation.md).
public enum EventType: UInt8, Sendable, Hashable, CaseIterable {
    case enter = 0
    case exit = 1
    case dwell = 2

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
    public var device: Int32
    /// Fence slot in the compiled fence set.
    public var fence: Int32
    public var type: EventType
    /// First determination of the device's state for this fence (`enter` only).
    public var initial: Bool
    public var time: Double
    public var lat: Double
    public var lon: Double

    public init(device: Int32, fence: Int32, type: EventType, initial: Bool, time: Double, lat: Double, lon: Double) {
        self.device = device; self.fence = fence; self.type = type; self.initial = initial
        self.time = time; self.lat = lat; self.lon = lon
    }
}
