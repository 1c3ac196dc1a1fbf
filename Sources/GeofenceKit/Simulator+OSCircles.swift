import GeofenceBase
import GeofenceIndex
import GeofenceFences
import GeofencePlanning
import GeofenceSimulation

extension Simulator {
    /// The OS circle of every fence: circles as they are, polygons as their enclosing circle (GEOS).
    public static func osCircles(_ fences: [Fence]) throws(GeofenceError) -> [OSCircle] {
        let v = try FenceValidator()
        var out: [OSCircle] = []
        out.reserveCapacity(fences.count)
        for f in fences {
            switch f.shape {
            case .circle(let lat, let lon, let r): out.append(OSCircle(lat: lat, lon: lon, radius: r))
            case .polygon(let polys):
                do {
                    let c = try v.enclosingCircle(polys)
                    out.append(OSCircle(lat: c.lat, lon: c.lon, radius: c.radius))
                } catch {
                    throw .input(InputError(f.source, .invalidRecord(reason: "invalid_polygon"), "cannot compute the enclosing circle: \(error)", recordID: f.id))
                }
            }
        }
        return out
    }
}
