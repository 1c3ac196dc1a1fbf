import GeofenceBase

/// One location fix, as the log readers deliver it.
///
/// Plain numbers, 40 bytes, no references: batches of fixes are flat arrays the
/// evaluator can scan without touching the heap.
public struct Fix: Hashable, Sendable {
    /// Dense index into the reader's ``DeviceTable`` (names in order of first appearance).
    public var device: Int32
    /// Unix seconds, UTC.
    public var time: Double
    /// Latitude in degrees, in [-90, 90].
    public var lat: Double
    /// Longitude in degrees, in [-180, 180].
    public var lon: Double
    /// Horizontal accuracy in metres (≥ 0); 0 when the log has none (docs/evaluation.md).
    public var accuracy: Double

    /// A fix from its parts, stored as given: the ranges above are not checked here (the log
    /// readers check them before they build a fix). `accuracy` defaults to 0 (unknown).
    public init(device: Int32, time: Double, lat: Double, lon: Double, accuracy: Double = 0) {
        self.device = device
        self.time = time
        self.lat = lat
        self.lon = lon
        self.accuracy = accuracy
    }
}
