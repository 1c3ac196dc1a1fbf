import FenceIndex

/// Fences compiled for the hot path: the spatial index, options in flat arrays
/// indexed by slot, and the source fences for output (identifiers, notes).
public struct CompiledFences: Sendable {
    public let index: FenceIndex
    public let options: CompiledOptions
    public let fences: [Fence]

    /// Compiles fences in order: slot k is `fences[k]`.
    public init(_ fences: [Fence], defaultDwell: Double? = nil) throws(GeofenceError) {
        do {
            index = try FenceIndex(fences.lazy.map { f in
                switch f.shape {
                case .circle(let lat, let lon, let r):
                    return .circle(CircleFence(id: f.id, lat: lat, lon: lon, radius: r))
                case .polygon(let polys):
                    return .polygon(PolygonFence(id: f.id, polygons: polys.map { $0.map { $0.map { LonLat(lon: $0.lon, lat: $0.lat) } } }))
                }
            })
        } catch {
            throw .data("cannot index fences: \(error)")
        }
        for (k, f) in fences.enumerated() where index.slot(of: f.id) != Int32(k) {
            throw .internal("fence \(f.id) compiled to slot \(String(describing: index.slot(of: f.id))), expected \(k)")
        }
        let order = fences.indices.sorted { fences[$0].id.utf8.lexicographicallyPrecedes(fences[$1].id.utf8) }
        var rank = [Int32](repeating: 0, count: fences.count)
        for (r, k) in order.enumerated() { rank[k] = Int32(r) }
        options = CompiledOptions(
            notifyOnEntry: fences.map { $0.options.notifyOnEntry },
            notifyOnExit: fences.map { $0.options.notifyOnExit },
            dwell: fences.map { $0.options.dwell ?? defaultDwell ?? -1 },
            repeats: fences.map { $0.options.repeats },
            idRank: rank)
        self.fences = fences
    }
}
