import GeofenceIndex

/// The polygons of a `CompiledFences` as the tile bundles read them: the
/// index's own `PolygonTable` (rings, part boxes, latitude bands; polygon
/// numbers from `FenceIndex.compiledGeometry(of:)`) and, per part, the
/// minimum of cos φ over its box. Read-only after `init`, shared by all
/// worker threads.
struct BundleGeometry: Sendable {
    /// The index's compiled polygons.
    let polygons: PolygonTable
    /// Per part of `polygons`: the minimum of cos φ over its box's latitudes (`SphericalBounds.cosMin`).
    let partCosMin: [Double]

    /// The polygons of `index` (the bundler's `compiled.index`).
    /// - Complexity: O(polygon parts).
    init(_ index: FenceIndex) {
        let polygons = index.polygonTable
        self.polygons = polygons
        partCosMin = (0..<polygons.partCount).map { p in
            let b = polygons.partBox(p)
            return SphericalBounds.cosMin(b.south, b.north)
        }
    }

    // MARK: Anchors (polygon upper bounds)

    /// A point on one part's boundary, in the part's own coordinates.
    struct Anchor: Sendable {
        var part: Int32
        var lon: Double
        var lat: Double
        /// Plane distance at the point it was chosen for (ordering only).
        var plane: Double
    }

    /// For each part of the polygon, the boundary point nearest to (`lat`,
    /// `lon`) in the local plane there, as the index measures
    /// (`PolygonTable.nearestBoundaryPoint`); the `limit` nearest of them,
    /// nearest first.
    /// - Complexity: O(edges of the polygon near the point).
    func anchors(polygon: Int, lat: Double, lon: Double, limit: Int, into out: inout [Anchor]) {
        out.removeAll(keepingCapacity: true)
        let k = PolygonTable.planeScales(lat: lat)
        for p in polygons.parts(of: polygon) {
            let q = polygons.nearestBoundaryPoint(part: p, lat: lat, lon: lon, kx: k.kx, ky: k.ky)
            if q.plane.isFinite { out.append(Anchor(part: Int32(p), lon: q.lon, lat: q.lat, plane: q.plane)) }
        }
        if out.count > limit {
            out.sort { $0.plane < $1.plane }
            out.removeLast(out.count - limit)
        }
    }
}
