import GeofenceBase

/// One location fix, as the log readers deliver it.
///
/// Plain numbers, 40 bytes, no references: batches of fixes are flat arrays the
/// evaluator can scan without touching the heap. Two fixes are equal when device, instant,
/// position and accuracy are: ``offset`` only says how the instant was written.
public struct Fix: Hashable, Sendable {
    /// Dense index into the reader's ``DeviceTable`` (names in order of first appearance).
    public var device: Int32
    /// The UTC offset the log wrote the time with, in minutes east (`+02:00` → 120); 0 for
    /// `Z`, no zone and epoch numbers. Output keeps it with `--time-zone keep`
    /// (docs/evaluation.md#event-records). In what would otherwise be padding.
    public var offset: Int16 = 0
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
    public init(device: Int32, time: Double, lat: Double, lon: Double, accuracy: Double = 0, offset: Int16 = 0) {
        self.offset = offset
        self.device = device
        self.time = time
        self.lat = lat
        self.lon = lon
        self.accuracy = accuracy
    }

    /// Same device, time, position and accuracy (the offset is not compared).
    public static func == (a: Fix, b: Fix) -> Bool {
        a.device == b.device && a.time == b.time && a.lat == b.lat && a.lon == b.lon && a.accuracy == b.accuracy
    }

    /// Hashes what `==` compares.
    public func hash(into h: inout Hasher) {
        h.combine(device); h.combine(time); h.combine(lat); h.combine(lon); h.combine(accuracy)
    }
}
