// The library in 30 lines (docs/library.md): load the bundled fences, stream the bundled
// AIS log through them, print every event as NDJSON, then the fences a phone at one
// point should monitor. Run from the repository root: `swift run geofence-example`.
// Its output equals `geofence evaluate` then `geofence nearest` on the same files.
import Foundation
import GeofenceKit

let fenceFiles = ["data/ports.csv", "data/airports.csv", "data/us_counties_va_nc.geojson"]
let log = "data/virginia_beach_ais.csv"
do {
    let engine = try Geofencer(contentsOf: fenceFiles)
    let settings = EvaluationSettings(exitMargin: 20, dwell: 900)
    let writer = EventWriter(format: .ndjson, fences: engine.fences)
    let events = try engine.evaluate(log: log, settings: settings)
    var line = ""
    for event in events {
        line.removeAll(keepingCapacity: true)
        writer.line(event, into: &line)
        print(line, terminator: "")
    }
    if let error = events.error { throw error }
    let answer = engine.nearest(lat: 36.85, lon: -76.30, slots: 5)
    print(JSONWriter.string(answer.json))
} catch {
    FileHandle.standardError.write(Data("geofence-example: \(error)\n".utf8))
    exit(1)
}
