import GeofenceIndex

/// A planner's answer at one position (docs/rotation.md).
public struct Plan: Hashable, Sendable {
    /// Latitude of the position planned at, degrees.
    public var lat: Double
    /// Longitude of the position planned at, degrees.
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
    /// Metres the device may cover beyond the refresh region's edge before the next plan is in
    /// place (guaranteed strategy: exit distance + speed × (delay + observation interval); 0
    /// for the baselines, which do not plan for it).
    public var reach: Double = 0

    /// A plan from its parts (see the properties).
    public init(lat: Double, lon: Double, fences: [Int32], clusters: [Region], refresh: Region?, coverage: Double,
                broken: [String], reach: Double = 0) {
        self.lat = lat; self.lon = lon; self.fences = fences; self.clusters = clusters; self.refresh = refresh
        self.coverage = coverage; self.broken = broken; self.reach = reach
    }

    /// Whether the plan is marked broken: `broken` holds at least one reason.
    public var guaranteeBroken: Bool { !broken.isEmpty }

    /// All regions to register: fences (as OS circles), clusters, refresh.
    /// - Precondition: `circles` has an entry for every slot in `fences` (it is read by slot).
    /// - Complexity: O(fences + clusters).
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
    /// Regions of the new plan not registered before, in the new plan's order.
    public var adds: [Region]
    /// Regions registered before that the new plan drops, in the old plan's order.
    public var removes: [Region]

    /// Regions are the same registration when kind, centre and radius are equal.
    /// - Complexity: O(old + new) expected (hashing; a cluster region hashes its slot list).
    public init(from old: [Region], to new: [Region]) {
        let o = Set(old), n = Set(new)
        adds = new.filter { !o.contains($0) }
        removes = old.filter { !n.contains($0) }
    }
}
