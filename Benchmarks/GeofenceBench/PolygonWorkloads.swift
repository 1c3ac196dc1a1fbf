import GeofenceKit
import GeofenceTestSupport
import Glibc
import GeometryKit

/// A named set of polygon fences with the query points that go with it.
struct PolygonWorkload {
    var name: String
    var polygons: [PolygonRecord]
    /// Point queries for this set.
    var queries: [Point]
    /// How the fences and queries were made (for the table and the JSON notes).
    var description: String
}

/// Real outlines reduced to their shapes: each (multi)polygon in a local metric frame
/// around its box centre (x east, y north; longitudes scaled by cos(lat), so the shape is
/// not stretched by latitude), divided by the larger side of its box, so every template
/// fits the box [−½, ½]² and touches it on two sides.
///
/// Optionally simplified by keeping every k-th vertex of each ring (first and closing vertex
/// kept, at least 4 positions). A template whose simplified rings GEOS finds invalid is
/// retried with k halved, down to the full outline. The source outlines come GEOS-validated
/// from the engine's loader; every map used afterwards (to the metric frame, scaling,
/// placement) is affine, so the fences made from a valid template are valid.
struct OutlineTemplates {
    /// Flat `x, y` pairs per template; rings closed.
    var coordinates: [[Double]] = []
    /// Ring starts (vertex index, then the total) and part starts (ring index, then the total) per template.
    var ringStarts: [[Int]] = []
    var partStarts: [[Int]] = []
    /// The k used per template (1 = full outline).
    var keptEvery: [Int] = []

    var count: Int { coordinates.count }
    var vertexCount: Int { coordinates.reduce(0) { $0 + $1.count / 2 } }

    init(_ outlines: [[[[(lon: Double, lat: Double)]]]], keepEvery k: Int) throws {
        let ctx = try GEOSContext()
        for parts in outlines {
            var west = 180.0, south = 90.0, east = -180.0, north = -90.0
            for ring in parts.joined() { for c in ring {
                west = min(west, c.lon); east = max(east, c.lon); south = min(south, c.lat); north = max(north, c.lat)
            } }
            let lat0 = (south + north) / 2, lon0 = (west + east) / 2, c0 = cos(lat0 * Double.pi / 180)
            let side = max((east - west) * c0, north - south)
            let unit: [[[(x: Double, y: Double)]]] = parts.map { $0.map { $0.map { (x: ($0.lon - lon0) * c0 / side, y: ($0.lat - lat0) / side) } } }
            var step = max(1, k)
            var shape = OutlineTemplates.simplified(unit, every: step)
            while step > 1, try !ctx.multiPolygon(shape).isValid() {
                step /= 2
                shape = OutlineTemplates.simplified(unit, every: step)
            }
            var xy: [Double] = [], rings = [0], partsAt = [0]
            for part in shape {
                for ring in part {
                    for p in ring { xy.append(p.x); xy.append(p.y) }
                    rings.append(xy.count / 2)
                }
                partsAt.append(rings.count - 1)
            }
            coordinates.append(xy); ringStarts.append(rings); partStarts.append(partsAt); keptEvery.append(step)
        }
    }

    /// The bundled county outlines (always present), loaded and GEOS-validated by the engine's loader.
    static let sourceFile = "data/us_counties_va_nc.geojson"
    /// Vertices kept per ring (every k-th): 146 → about 39 per outline, so 1M fences fit in memory.
    static let keepEvery = 4

    static func counties(_ data: RealData) throws -> OutlineTemplates {
        let outlines: [[[[(lon: Double, lat: Double)]]]] = try data.fences([sourceFile]).fences.compactMap { f in
            guard case .polygon(let parts) = f.shape else { return nil }
            return parts.map { $0.map { $0.map { (lon: $0.lon, lat: $0.lat) } } }
        }
        return try OutlineTemplates(outlines, keepEvery: keepEvery)
    }

    /// How the templates were made, for section titles.
    var summary: String {
        let more = keptEvery.filter { $0 < OutlineTemplates.keepEvery }.count
        return "\(count) outlines of \(OutlineTemplates.sourceFile), every \(OutlineTemplates.keepEvery)th vertex"
            + (more > 0 ? " (\(more) kept more: simplified ring invalid)" : "")
    }

    /// Every k-th position of each closed ring (and the closing one); rings that would keep
    /// fewer than 4 positions are kept whole.
    static func simplified(_ parts: [[[(x: Double, y: Double)]]], every k: Int) -> [[[(x: Double, y: Double)]]] {
        guard k > 1 else { return parts }
        return parts.map { part in
            part.map { ring in
                let open = ring.count - 1
                guard open / k + 1 >= 4 else { return ring }
                var out = stride(from: 0, to: open, by: k).map { ring[$0] }
                out.append(ring[0])
                return out
            }
        }
    }

    /// Template `t` scaled to `size` metres across (its larger side) and centred at `centre`.
    /// Latitude is linear in y, longitude linear in x with the 1/cos(lat) of the centre: an
    /// affine map, so validity is kept. The caller keeps the box clear of the antimeridian.
    func place(_ t: Int, size: Double, at centre: Point) -> PolygonShape {
        let sy = size / Synthetic.metresPerDegree
        let sx = sy / cos(centre.lat * Double.pi / 180)
        let xy = coordinates[t]
        var out = [Double](repeating: 0, count: xy.count)
        for v in stride(from: 0, to: xy.count, by: 2) {
            out[v] = centre.lon + xy[v] * sx
            out[v + 1] = centre.lat + xy[v + 1] * sy
        }
        return PolygonShape(coordinates: out, ringStarts: ringStarts[t], partStarts: partStarts[t])!
    }
}

extension Synthetic {
    /// Seeded polygon fences from real outlines: fence `i` is template `i mod
    /// templates.count`, sized log-uniform 200 m – 5 km across, centred
    /// - **uniform**: uniformly by area over latitudes −60°…70°;
    /// - **clustered**: at a draw of the 300 Zipf-weighted cities of `clustered(count:queries:seed:)`.
    ///
    /// The centre's longitude is clamped so the fence's box stays within ±180° (no
    /// antimeridian crossing by construction). Queries: half uniform in the box of a random
    /// fence (inside or near an edge), half from the fences' own distribution (uniform band
    /// or cities), so answers are non-trivial and the clustered case meets overlaps.
    static func polygons(kind: String, count n: Int, queries q: Int, templates: OutlineTemplates, seed: UInt64,
                         cityCount: Int = 300) -> PolygonWorkload {
        var rng = SeededGenerator(benchmarkSeed: seed ^ (kind == "uniform" ? 0x5EED_0011 : 0x5EED_0012))
        let cities = kind == "clustered" ? Cities(count: cityCount, rng: &rng) : nil
        let sinSouth = sin(-60 * Double.pi / 180), sinNorth = sin(70 * Double.pi / 180)
        func centre(_ rng: inout SeededGenerator) -> Point {
            if let cities { return cities.draw(&rng) }
            return Point(lat: asin(rng.uniform(sinSouth, sinNorth)) * 180 / Double.pi, lon: rng.uniform(-180, 180))
        }
        var polygons: [PolygonRecord] = []
        var boxes: [(west: Double, south: Double, east: Double, north: Double)] = []
        polygons.reserveCapacity(n)
        boxes.reserveCapacity(n)
        for i in 0..<n {
            let size = rng.logUniform(200, 5_000)
            var c = centre(&rng)
            let half = 0.5 * size / (metresPerDegree * cos(c.lat * Double.pi / 180)) * (1 + 1e-6)
            c.lon = min(max(c.lon, -180 + half), 180 - half)
            let shape = templates.place(i % templates.count, size: size, at: c)
            var w = 180.0, s = 90.0, e = -180.0, nn = -90.0
            let xy = shape.coordinates
            for v in stride(from: 0, to: xy.count, by: 2) {
                w = min(w, xy[v]); e = max(e, xy[v]); s = min(s, xy[v + 1]); nn = max(nn, xy[v + 1])
            }
            precondition(w >= -180 && e <= 180, "fence box within ±180°")
            polygons.append(PolygonRecord(id: "\(kind.prefix(1))p\(i)", shape: shape))
            boxes.append((w, s, e, nn))
        }
        var queries: [Point] = []
        queries.reserveCapacity(q)
        for k in 0..<q {
            if k % 2 == 0 {
                let b = boxes[rng.int(n)]
                queries.append(Point(lat: rng.uniform(b.south, b.north), lon: rng.uniform(b.west, b.east)))
            } else {
                queries.append(centre(&rng))
            }
        }
        let region = kind == "clustered" ? "\(cityCount) cities (Zipf-like, σ 3–20 km)" : "uniform by area over lat −60…70"
        return PolygonWorkload(name: "\(kind) \(sizeName(n))", polygons: polygons, queries: queries,
                               description: "outline i mod \(templates.count), 200 m–5 km across, \(region); queries half in a fence's box, half from the same distribution")
    }
}
