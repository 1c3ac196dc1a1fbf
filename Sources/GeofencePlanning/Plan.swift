import GeofenceIndex

/// A planner's answer at one position (docs/rotation.md).
public struct Plan: Hashable, Sendable {
    public var lat: Double
    public var lon: Double
    /// Fence slots monitored directly, nearest first.
    public var fences: [Int32]
    /// Cluster regions (covering circles), if any.
    public var clusters: [Region]
    /// The refresh region (nil when every fence is monitored and nothing can be missed).
    public var refresh: Region?
    /// Distance to the nearest fence neither monitored nor covered by a cluster (∞ if none):
    /// the largest refresh radius that keeps the guarantee.
    public var coverage: Double
    /// Whether the coverage guarantee is broken, and why.
    public var broken: [String]

    public var guaranteeBroken: Bool { !broken.isEmpty }

    /// All regions to register: fences (as OS circles), clusters, refresh.
    public func regions(circles: [OSCircle]) -> [Region] {
        var r = fences.map { s -> Region in
            let c = circles[Int(s)]
            return Region(kind: .fence(s), lat: c.lat, lon: c.lon, radius: c.radius)
        }
        r += clusters
        if let refresh { r.append(refresh) }
        return r
    }
}

/// The registration change between two plans: what must be added and removed.
public struct PlanDiff: Hashable, Sendable {
    public var adds: [Region]
    public var removes: [Region]

    /// Regions are the same registration when kind, centre and radius are equal.
    public init(from old: [Region], to new: [Region]) {
        let o = Set(old), n = Set(new)
        adds = new.filter { !o.contains($0) }
        removes = old.filter { !n.contains($0) }
    }
}
