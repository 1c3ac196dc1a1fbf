import GeofenceKit

/// The `--fences` help text every command shares (docs/fences.md#input-formats).
let fencesHelp = "GeoJSON, CSV (id,lat,lon,radius,... or mapped with --fields; gzip too; '-' for standard input), or a vector source GDAL reads: Shapefile (.shp, zipped), GeoPackage, KML/KMZ, FlatGeobuf, GeoJSONSeq, 'gdal:NAME'."

/// `--layer`: the layer of GDAL sources with several (docs/fences.md#other-vector-formats-gdal).
let layerOption = OptionSpec.value("--layer", name: "name", help: "Layer to read from GDAL sources with several layers (GeoPackage, KML, ...).")

/// The field-mapping options of fence inputs (docs/fences.md#field-mapping). `delimiter` names
/// the CSV delimiter option: `--delimiter` on fence-only commands, `--fence-delimiter` where the
/// logs have a `--delimiter` of their own.
func fenceFieldOptions(delimiter: String = "--delimiter") -> [OptionSpec] {
    [
        .value("--fields", name: "field=name,...", help: "Where fence attributes are: id, lat, lon, x, y, radius, wkt, notifyOnEntry, notifyOnExit, dwell, repeats, note (e.g. id=ID,lat=Lat,lon=Lon,radius=Radius). Default: recognised names, any case."),
        .value("--radius-field", name: "name", help: "The radius column or property (same as --fields radius=NAME)."),
        .value("--radius-unit", name: "m|km|ft|mi", help: "Unit of the radius field (default: m, or the unit its name says: radius_km...)."),
        .value("--default-radius", name: "metres", help: "Radius of points without one (default: such a point is a problem)."),
        .value(delimiter, name: "char", help: "Fence CSV delimiter: , ; | or tab (default: detected from the header)."),
    ]
}

extension Arguments {
    /// The fence field options given (docs/fences.md#field-mapping); `delimiter` as in ``fenceFieldOptions(delimiter:)``.
    func fenceFields(delimiter: String = "--delimiter") throws(CommandError) -> FenceFieldOptions {
        var o = FenceFieldOptions()
        if let f = value("--fields") { o.mapping = try library { () throws(GeofenceError) in try FenceFieldOptions.parseMapping(f) } }
        if let r = value("--radius-field") {
            if let m = o.mapping[.radius], m != r {
                throw .usage("geofence \(command): --radius-field '\(r)' conflicts with --fields radius=\(m)")
            }
            o.mapping[.radius] = r
        }
        if let u = value("--radius-unit") {
            guard let unit = LengthUnit(rawValue: u.lowercased()) else {
                throw .usage("geofence \(command): option '--radius-unit' expects m, km, ft or mi, got '\(u)'")
            }
            o.radiusUnit = unit
        }
        if let d = try double("--default-radius") {
            guard d > 0 else { throw .usage("geofence \(command): option '--default-radius' must be > 0 metres, got '\(value("--default-radius")!)'") }
            o.defaultRadius = d
        }
        if let d = value(delimiter) {
            do { o.delimiter = try FenceFieldOptions.parseDelimiter(d) } catch {
                throw .usage("geofence \(command): option '\(delimiter)': \(error.description)")
            }
        }
        return o
    }
}
