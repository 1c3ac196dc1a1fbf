import GeofenceBase
import GeofenceGDAL
import GeofenceIndex
import GeometryKit

extension FenceLoader {
    /// A reprojection from `crs` (anything PROJ reads: `EPSG:2154`, a URN) to WGS84 lon/lat.
    /// - Throws: `GeofenceError.invalidArgument` (parameter `crs`) for an unknown or unusable CRS.
    public static func reprojector(from crs: String) throws(GeofenceError) -> Reprojector {
        let context: PROJContext
        // fails only when libproj cannot be loaded or allocate a context: not the CRS's fault
        do { context = try PROJContext() } catch { throw .internal("cannot create a PROJ context: \(error)") }
        let transformer: CRSTransformer
        do {
            transformer = try CRSTransformer(from: crs, to: "EPSG:4326", context: context)
        } catch {
            throw .argument("crs", "unknown or unusable CRS '\(crs)': \(error)")
        }
        return { coords in
            var pts = coords.map { (x: $0.lon, y: $0.lat) }
            try transformer.transform(&pts)
            for k in coords.indices { coords[k] = Coordinate(lon: pts[k].x, lat: pts[k].y) }
        }
    }

    /// The CRS a GeoJSON `crs` member names (`{"type":"name","properties":{"name":...}}`), as
    /// PROJ reads it: `EPSG:n` for `urn:ogc:def:crs:EPSG::n` and `EPSG:n`; nil for WGS84
    /// lon/lat (`urn:ogc:def:crs:OGC:1.3:CRS84`, `EPSG:4326`: positions are lon/lat either way).
    /// - Throws: malformed when the member is not a named CRS.
    static func crsName(_ member: JSONValue, name: String) throws(GeofenceError) -> String? {
        guard member["type"]?.stringValue == "name", let n = member["properties"]?["name"]?.stringValue, !n.isEmpty else {
            throw .malformed(SourceLocation(file: name), "the \"crs\" member is not a named CRS ({\"type\":\"name\",\"properties\":{\"name\":\"EPSG:n\"}}); linked CRSs are not read")
        }
        let upper = n.uppercased()
        if upper.hasSuffix("CRS84") || upper.hasSuffix("CRS:84") { return nil }
        var crs = n
        if upper.hasPrefix("URN:OGC:DEF:CRS:EPSG:"), let code = n.split(separator: ":").last, !code.isEmpty { crs = "EPSG:\(code)" }
        // GeoJSON positions are lon/lat whatever EPSG:4326's axis order says.
        return crs.uppercased() == "EPSG:4326" ? nil : crs
    }

    /// Applies a GeoJSON document's `crs` member (docs/fences.md#projected-input---crs):
    /// coordinates are reprojected from it, unless `--crs` was given, which must then name the
    /// same CRS.
    /// - Throws: malformed for a member that is not a named CRS; `invalidArgument` (`crs`) for
    ///   an unknown CRS or one conflicting with `--crs`.
    mutating func applyCRSMember(_ member: JSONValue, name: String) throws(GeofenceError) {
        guard let crs = try Self.crsName(member, name: name) else { return }
        if let given = vector.crs {
            var same = given.uppercased() == crs.uppercased()
            if !same, let a = try? VectorSpatialReference(userInput: given), let b = try? VectorSpatialReference(userInput: crs) {
                same = a.isSame(as: b)
            }
            guard same else {
                throw .argument("crs", "'\(given)' conflicts with the \"crs\" member of \(name) (\(crs)); drop --crs, the file's own CRS is used")
            }
            return
        }
        if reproject == nil { reproject = try Self.reprojector(from: crs) }
    }
}
