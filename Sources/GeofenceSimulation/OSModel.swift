import GeofenceBase
import GeofenceIndex
import GeofenceLogs
import GeofenceEvaluation
import GeofencePlanning

/// How the simulated operating system monitors regions (docs/rotation.md), with
/// iOS-like defaults and where each comes from:
///
/// - `slots` 20: "An app can register up to 20 regions at a time" (Apple,
///   `CLLocationManager.startMonitoring(for:)`); Android allows 100.
/// - `minRadius` 100 m: regions smaller than this fire unreliably (Apple's guidance that a
///   region's boundary is only resolved to what cell and Wi-Fi positioning allow; widely
///   measured as ~100–200 m). The OS monitors `max(radius, minRadius)`.
/// - `maxRadius` 100 km: `maximumRegionMonitoringDistance` is device-dependent and unpublished.
/// - `delay` 20 s: Apple's Location and Maps Programming Guide says the user must remain on
///   the new side of the boundary for at least 20 seconds before the notification; the same
///   page of the `startMonitoring` docs says delivery takes "3 to 5 minutes on average" in
///   older iOS, so 20 s is the optimistic end.
/// - `exitDistance` 100 m: the guide says the user must travel "a minimum distance over the
///   boundary"; the distance is unpublished, 100 m is our assumption.
/// - A region registered while the device is already inside produces no enter event unless
///   the app asks for its state (`requestState`); `requestsState` says whether a strategy does.
///
/// `delay 0, exitDistance 0, minRadius 0` is the ideal OS of docs/rotation.md.
public struct OSModel: Hashable, Sendable {
    /// Regions the OS monitors at once, fences plus the refresh and cluster regions; default 20.
    /// The planner needs at least 2 (one fence and the refresh region).
    public var slots = 20
    /// Metres: the OS monitors every region with at least this radius; default 100.
    public var minRadius = 100.0
    /// Metres: the largest region the planners register (refresh regions are capped at it; a
    /// larger monitored fence breaks the plan). The simulated OS itself accepts any radius.
    /// Default 100 000 (100 km).
    public var maxRadius = 100_000.0
    /// Seconds between the fix that crosses a boundary and the delivery of the OS event;
    /// default 20. 0 delivers at the same fix.
    public var delay = 20.0
    /// Metres beyond a region's (effective) radius the device must be before the OS reports
    /// the exit; default 100.
    public var exitDistance = 100.0
    /// The iOS-like defaults listed above.
    public init() {}

    /// The ideal OS of docs/rotation.md: no delay, no exit distance, no minimum radius
    /// (20 slots and the 100 km maximum kept).
    public static let ideal: OSModel = {
        var m = OSModel()
        m.minRadius = 0; m.delay = 0; m.exitDistance = 0
        return m
    }()
}
