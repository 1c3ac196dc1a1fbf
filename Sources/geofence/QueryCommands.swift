import Foundation
import GeofenceKit

/// `geofence contains`: which fences contain a point (like CLLocationManager.requestState).
enum ContainsCommand {
    static let spec = CommandSpec(
        name: "contains",
        summary: "Which fences contain a point, with accuracy: inside, or uncertain (JSON).",
        usage: "--fences <file> [--fences <file> ...] --at LAT,LON [--accuracy M] [--crs EPSG:n] [--skip-invalid]",
        options: [
            .value("--fences", "-f", name: "file", repeatable: true, help: fencesHelp),
            layerOption,
        ] + fenceFieldOptions() + [
            .value("--at", name: "lat,lon", help: "The point, latitude first."),
            .value("--accuracy", name: "metres", help: "Horizontal accuracy of the point (default 0)."),
            .value("--crs", name: "crs", help: "CRS of the fence input (default: WGS84)."),
            .flag("--skip-invalid", help: "Skip fences with problems instead of stopping (counts on stderr)."),
        ],
        discussion: """
        A fence is "inside" when the whole accuracy circle is inside it, "uncertain" when the
        accuracy circle straddles its edge; fences not listed are outside (docs/evaluation.md).
        Distances are metres to the fence boundary (0 when inside for `distance`).
        """)

    static func run(_ args: Arguments) throws -> Int32 {
        let paths = try args.requiredAll("--fences")
        guard let at = try args.latLon("--at") else { throw CommandError.usage("geofence contains: missing required option '--at'") }
        let accuracy = try args.double("--accuracy", default: 0, min: 0)!
        let engine = try loadFences(paths, crs: args.value("--crs"), layer: args.value("--layer"), fields: args.fenceFields(), skipInvalid: args.flag("--skip-invalid"), command: "contains")
        let answer = engine.contains(lat: at.lat, lon: at.lon, accuracy: accuracy)
        try Console.out((JSONWriter.string(answer.json) + "\n"))
        return 0
    }
}

/// `geofence nearest`: the planner's answer at a point.
enum NearestCommand {
    static let spec = CommandSpec(
        name: "nearest",
        summary: "The fences to monitor at a point (the k-1 nearest by boundary distance) and the refresh region (JSON).",
        usage: "--fences <file> [--fences <file> ...] --at LAT,LON [-k 20] [--crs EPSG:n] [--skip-invalid]",
        options: [
            .value("--fences", "-f", name: "file", repeatable: true, help: fencesHelp),
            layerOption,
        ] + fenceFieldOptions() + [
            .value("--at", name: "lat,lon", help: "The device position, latitude first."),
            .value("-k", "--slots", name: "n", help: "Regions the device can monitor (default 20, iOS; Android 100)."),
            .value("--crs", name: "crs", help: "CRS of the fence input (default: WGS84)."),
            .flag("--skip-invalid", help: "Skip fences with problems instead of stopping (counts on stderr)."),
        ],
        discussion: """
        Fences are ranked by distance to their boundary (0 when inside), ties by identifier.
        The k-1 nearest are monitored; the refresh region is a circle at the point whose
        radius is the distance to the nearest fence not monitored, so no unmonitored fence can
        be reached without leaving it (null radius: every fence is monitored).
        """)

    static func run(_ args: Arguments) throws -> Int32 {
        let paths = try args.requiredAll("--fences")
        guard let at = try args.latLon("--at") else { throw CommandError.usage("geofence nearest: missing required option '--at'") }
        let k = try args.int("-k", default: 20, min: 2, max: 1_000_000)!
        let engine = try loadFences(paths, crs: args.value("--crs"), layer: args.value("--layer"), fields: args.fenceFields(), skipInvalid: args.flag("--skip-invalid"), command: "nearest")
        let answer = engine.nearest(lat: at.lat, lon: at.lon, slots: k)
        try Console.out((JSONWriter.string(answer.json) + "\n"))
        return 0
    }
}

/// Loads, checks and compiles fences for a command, with a progress line on a terminal;
/// skipped counts go to stderr unless `reportSkipped` is false (the caller words them).
func loadFences(_ paths: [String], crs: String?, layer: String?, fields: FenceFieldOptions, skipInvalid: Bool, command: String,
                keepingProperties names: [String] = [], reportSkipped: Bool = true, threads: Int = 1) throws -> Geofencer {
    let progress = PhaseProgress(command: command)
    defer { progress.finish() }
    let engine = try Geofencer(contentsOf: paths, crs: crs, layer: layer, fields: fields, skipInvalid: skipInvalid, keepingProperties: names,
                               progress: progress.phase, threads: threads)
    let skipped = engine.skippedProblems
    if !skipped.isEmpty && reportSkipped {
        let total = skipped.values.reduce(0, +)
        var line = "geofence \(command): skipped \(counted(total, "fence problem")):"
        for (kind, n) in skipped.sorted(by: { $0.key.rawValue < $1.key.rawValue }) { line += " \(kind.rawValue) \(n);" }
        Console.note(String(line.dropLast()) + "\n")
    }
    return engine
}
