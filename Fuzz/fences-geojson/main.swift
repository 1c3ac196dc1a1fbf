// libFuzzer target: fence GeoJSON (Fuzz/README.md).
import FuzzSupport
import GeofenceKit

fuzzMain { data, count in
    _ = try? FenceLoader().load(bytes: fuzzBytes(data, count), name: "fuzz.geojson", format: .geojson)
    return 0
}
