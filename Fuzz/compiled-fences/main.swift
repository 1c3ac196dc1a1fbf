// libFuzzer target: compiled fence files (Fuzz/README.md).
import FuzzSupport
import Foundation
import GeofenceKit
import GeofenceIndex

// The file lives in memory-backed storage when there is one: opening reads it from a path.
let directory = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
let path = directory + "/geofence-fuzz-\(getpid()).gfc"

fuzzMain { data, count in
    // Checksums are recomputed over the mutated bytes, so the fuzzer reaches the structural
    // checks behind them (random checksums would stop every input at the first check).
    var bytes = fuzzBytes(data, count)
    CompiledFenceFile.resealChecksums(&bytes)
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return 0 }
    defer { unlink(path) }
    // Opened by one thread and by two (sections read and checked side by side): refused or
    // opened alike.
    let opened = try? Geofencer(contentsOf: [path])
    let twoThreads = try? Geofencer(contentsOf: [path], threads: 2)
    if (twoThreads == nil) != (opened == nil) { fatalError("one thread and two threads disagree on whether the file opens") }
    // What opens must answer queries without a trap, and list its fences.
    guard let fencer = opened else { return 0 }
    for (lat, lon) in [(0.0, 0.0), (36.85, -76.3), (48.85, 2.35), (-33.9, 151.2), (89.9, 179.9), (-89.9, -180.0)] {
        _ = fencer.contains(lat: lat, lon: lon, accuracy: 500)
        _ = fencer.nearest(lat: lat, lon: lon, slots: 5)
    }
    _ = try? CompiledFenceFile.open(path: path).fences()
    return 0
}
