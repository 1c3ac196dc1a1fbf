// libFuzzer target: fence CSV (Fuzz/README.md).
import FuzzSupport
import GeofenceKit

fuzzMain { data, count in
    _ = try? FenceLoader().load(bytes: fuzzBytes(data, count), name: "fuzz.csv", format: .csv)
    return 0
}
