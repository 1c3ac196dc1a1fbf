import Foundation
import GeofenceKit

enum EvaluateCommand {
    static let spec = CommandSpec(
        name: "evaluate",
        summary: "Turn location logs into per-device enter/exit/dwell events (docs/evaluation.md).",
        usage: "--fences <file> ... --log <file> [--log <file> ...] [-o <out>] [--format ndjson|csv] [--threads N] [--exit-margin M] [--dwell S] [--skip-invalid]",
        options: [
            .value("--fences", "-f", name: "file", repeatable: true, help: "GeoJSON FeatureCollection or CSV (id,lat,lon,radius,...)."),
            .value("--log", "-l", name: "file", repeatable: true, help: "Location log: CSV, NDJSON or GPX, optionally .gz; '-' for stdin. Several logs are read as one, in order."),
            .value("--output", "-o", name: "file", help: "Write events here (temporary name, renamed on success); default stdout."),
            .value("--format", name: "ndjson|csv", help: "Event format (default ndjson)."),
            .value("--threads", "-j", name: "n", help: "Worker threads, partitioned by device (default: all cores). Output is identical for any value."),
            .value("--exit-margin", name: "metres", help: "An exit needs the accuracy circle to clear the edge by this much (default 0)."),
            .value("--dwell", name: "seconds", help: "Dwell time for fences without their own 'dwell' property (default: none)."),
            .flag("--skip-invalid", help: "Skip bad rows and bad fences, count them by reason (default: stop at the first, exit 65)."),
            .value("--columns", name: "spec", help: "CSV/NDJSON field names, e.g. device=mmsi,time=ts,lat=y,lon=x,accuracy=acc."),
            .value("--log-format", name: "csv|ndjson|gpx", help: "Log format when the file name does not tell."),
            .value("--device", name: "id", help: "Device id for GPX logs (default: the file name without extension)."),
            .value("--summary", name: "file", help: "Also write the summary as JSON to this file."),
            .value("--crs", name: "crs", help: "CRS of the fence input (default: WGS84)."),
            .flag("--quiet", "-q", help: "No progress line and no summary on stderr."),
        ],
        discussion: """
        Events are written devices in order of first appearance, each device's events in time
        order, events of the same fix by fence identifier. Exit codes: 0 ok, 64 usage, 65 bad
        data (file:line: reason; no output is left under the final name), 66 missing input, 74 I/O.
        """)

    static func run(_ args: Arguments) throws -> Int32 {
        let fencePaths = try args.requiredAll("--fences")
        let logs = try args.requiredAll("--log")
        let format = EventWriter.Format(rawValue: try args.choice("--format", ["ndjson", "csv"], default: "ndjson"))!
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let threads = try args.int("--threads", default: cores, min: 1, max: 1024)!
        let margin = try args.double("--exit-margin", default: 0, min: 0, max: EvaluationSettings.maximumExitMargin)!
        let dwell = try args.double("--dwell", default: nil, min: 0, max: 1e9)
        let skipInvalid = args.flag("--skip-invalid")
        let quiet = args.flag("--quiet")
        var options = LogReaderOptions()
        options.skipInvalid = skipInvalid
        if let c = args.value("--columns") { options.columns = try LogColumns.parse(c) }
        if let f = args.value("--log-format") {
            guard let lf = LogFormat(name: f) else { throw CommandError.usage("geofence evaluate: option '--log-format' must be csv, ndjson or gpx, got '\(f)'") }
            options.format = lf
        }
        options.device = args.value("--device")

        let start = DispatchTime.now()
        let engine = try Geofencer(contentsOf: fencePaths, crs: args.value("--crs"), skipInvalid: skipInvalid)
        let skippedFences = engine.skippedProblems
        let run = EvaluationRun(compiled: engine.compiled.withDefaultDwell(dwell),
                                settings: EvaluationSettings(exitMargin: margin, dwell: dwell), threads: threads)
        let loaded = DispatchTime.now()

        let devices = DeviceTable()
        var summary = EvaluationSummary()
        summary.threads = threads
        summary.fences = engine.fences.count
        let progress = Progress(enabled: !quiet && isatty(2) != 0)
        var batch: [Fix] = []
        batch.reserveCapacity(65_536)
        for path in logs {
            let reader = try LogReader(path: path, options: options, devices: devices)
            while try reader.next(into: &batch, max: 65_536) {
                run.process(batch)
                progress.update(file: path, bytes: reader.bytesRead, total: reader.totalBytes, fixes: run.fixes, start: loaded)
            }
            for (k, v) in reader.skipped { summary.skipped[k, default: 0] += v }
            summary.bytes += reader.bytesRead
        }
        progress.clear()

        var sink = try FileSink(path: args.value("--output"))
        do {
            try run.write(to: &sink, format: format, deviceName: { devices.name($0) })
            try sink.finish()
        } catch {
            sink.abandon()
            throw error
        }
        summary.fixes = run.fixes
        summary.devices = devices.count
        summary.events = run.eventCounts
        summary.fenceSeconds = Double(loaded.uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        summary.seconds = Double(DispatchTime.now().uptimeNanoseconds - loaded.uptimeNanoseconds) / 1e9
        if !quiet {
            var text = "geofence evaluate: " + summary.text
            if !skippedFences.isEmpty {
                let n = skippedFences.values.reduce(0, +)
                text += "; skipped \(n) fence problem\(n == 1 ? "" : "s") (" + skippedFences.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ") + ")"
            }
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
        if let s = args.value("--summary") {
            var j = summary.json
            if case .object(var o) = j {
                o.append(("fence_problems_skipped", JSONValue.number(Double(skippedFences.values.reduce(0, +)))))
                j = .object(o)
            }
            try AtomicFile.write(JSONWriter.string(j) + "\n", to: s)
        }
        return 0
    }
}

/// A progress line on stderr (only when it is a terminal): bytes read of total, fixes/s, ETA.
final class Progress {
    let enabled: Bool
    var last = DispatchTime.now()
    var shown = false

    init(enabled: Bool) { self.enabled = enabled }

    func update(file: String, bytes: Int64, total: Int64?, fixes: Int, start: DispatchTime) {
        guard enabled else { return }
        let now = DispatchTime.now()
        guard now.uptimeNanoseconds - last.uptimeNanoseconds > 250_000_000 else { return }
        last = now
        let secs = Double(now.uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        let rate = secs > 0 ? Double(fixes) / secs : 0
        var line = "\r\(file): \(fixes) fixes, \(Int(rate)) fixes/s"
        if let total, total > 0 {
            let f = Double(bytes) / Double(total)
            line += String(format: ", %.1f%% of %.1f MB", f * 100, Double(total) / 1e6)
            if f > 0.01 { line += String(format: ", ETA %.0f s", secs / f - secs) }
        }
        FileHandle.standardError.write(Data((line + "\u{1B}[K").utf8))
        shown = true
    }

    func clear() {
        if shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
