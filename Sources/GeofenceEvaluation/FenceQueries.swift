import GeofenceBase
import GeofenceLogs
import GeofenceIndex

/// Point queries over compiled fences, answered as JSON for the CLI and tests.
public struct FenceQueries {
    public let compiled: CompiledFences
    public init(_ compiled: CompiledFences) { self.compiled = compiled }

    /// Fences whose state at the point is inside or uncertain, by identifier.
    public func contains(lat: Double, lon: Double, accuracy: Double) -> JSONValue {
        let index = compiled.index
        var hits = index.classify(lat: lat, lon: lon, accuracy: accuracy)
        hits.removeAll { $0.state != .inside && $0.state != .uncertain }
        hits.sort { compiled.options.idRank[Int($0.slot)] < compiled.options.idRank[Int($1.slot)] }
        func entry(_ c: FenceClassification) -> JSONValue {
            .object([("id", .string(index.identifier(of: c.slot))),
                     ("boundary_distance", .number(rounded(index.boundaryDistance(of: c.slot, lat: lat, lon: lon)))),
                     ("shape", .string(index.isPolygon(c.slot) ? "polygon" : "circle"))])
        }
        return .object([
            ("lat", .number(lat)), ("lon", .number(lon)), ("accuracy", .number(accuracy)),
            ("inside", .array(hits.filter { $0.state == .inside }.map(entry))),
            ("uncertain", .array(hits.filter { $0.state == .uncertain }.map(entry))),
        ])
    }

    /// The k−1 nearest fences by boundary distance and the refresh radius (distance to the k-th).
    public func nearest(slots k: Int, lat: Double, lon: Double) -> JSONValue {
        let index = compiled.index
        let found = index.nearest(k, lat: lat, lon: lon)
        let monitored = found.prefix(k - 1)
        let refresh: JSONValue = found.count >= k ? .number(rounded(found[k - 1].distance)) : .null
        let list: [JSONValue] = monitored.map { n in
            .object([("id", .string(index.identifier(of: n.slot))), ("distance", .number(rounded(n.distance))),
                     ("shape", .string(index.isPolygon(n.slot) ? "polygon" : "circle"))])
        }
        return .object([
            ("lat", .number(lat)), ("lon", .number(lon)), ("slots", .number(Double(k))),
            ("monitor", .array(list)),
            ("refresh", .object([("lat", .number(lat)), ("lon", .number(lon)), ("radius", refresh),
                                 ("next", found.count >= k ? .string(index.identifier(of: found[k - 1].slot)) : .null)])),
        ])
    }

    /// Millimetre precision in output.
    func rounded(_ d: Double) -> Double { (d * 1000).rounded() / 1000 }
}
