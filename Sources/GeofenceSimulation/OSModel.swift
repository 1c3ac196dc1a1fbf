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
    public var slots = 20
    public var minRadius = 100.0
    public var maxRadius = 100_000.0
    public var delay = 20.0
    public var exitDistance = 100.0
    public init() {}

    public static let ideal: OSModel = {
        var m = OSModel()
        m.minRadius = 0; m.delay = 0; m.exitDistance = 0
        return m
    }()
}
