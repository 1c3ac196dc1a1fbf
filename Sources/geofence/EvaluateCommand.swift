import Foundation
import GeofenceKit

enum EvaluateCommand {
    static let spec = CommandSpec(
        name: "evaluate",
        summary: "Turn location logs into per-device enter/exit/dwell events (docs/evaluation.md).",
        usage: "--fences <file> ... --log <file> [--log <file> ...] [-o <out>] [--format ndjson|csv|geojson|geojsonl] [--event-fields accuracy,duration] [--event-properties name,...] [--threads N] [--exit-margin M] [--dwell S] [--skip-invalid] [--state-in F] [--state-out F] [--memory-budget B]",
        options: [
            .value("--fences", "-f", name: "file", repeatable: true, help: fencesHelp),
            layerOption,
        ] + fenceFieldOptions(delimiter: "--fence-delimiter") + [
            .value("--log", "-l", name: "file", repeatable: true, help: "Location log: CSV, NDJSON or GPX, optionally .gz; '-' for stdin. Several logs are read as one, in order."),
            .value("--output", "-o", name: "file", help: "Write events here (temporary name, renamed on success); default stdout."),
            .value("--time-zone", name: "utc|keep", help: "Event times in UTC with Z (default), or 'keep': with the offset the log wrote each fix's time with."),
            .value("--format", name: "ndjson|csv|geojson|geojsonl", help: "Event format (default ndjson); geojson: a FeatureCollection of Point features, geojsonl: one feature per line."),
            .value("--event-fields", name: "list", help: "Optional fields to add: accuracy (the fix's, metres, when the log has one), duration (dwell and exit: seconds since the visit's enter)."),
            .value("--event-properties", name: "list", help: "Fence properties to copy into every event as fence_<name>, e.g. name,kind."),
            .value("--threads", "-j", name: "n", help: "Worker threads (default: all cores): they open a compiled fence file, read the log and evaluate, partitioned by device. Output is identical for any value."),
            .value("--exit-margin", name: "metres", help: "An exit needs the accuracy circle to clear the edge by this much (default 0)."),
            .value("--dwell", name: "seconds", help: "Dwell time for fences without their own 'dwell' property (default: none)."),
            .flag("--skip-invalid", help: "Skip bad rows and bad fences, count them by reason (default: stop at the first, exit 65)."),
        ] + logReadingOptions + [
            .value("--log-format", name: "csv|ndjson|gpx", help: "Log format when the file name does not tell."),
            .value("--device", name: "id", help: "Device id for GPX logs (default: the file name without extension)."),
            .value("--summary", name: "file", help: "Also write the summary as JSON to this file."),
            .value("--crs", name: "crs", help: "CRS of the fence input (default: WGS84)."),
            .flag("--quiet", "-q", help: "No progress line and no summary on stderr."),
            .value("--state-in", name: "file", help: "Continue from the state a previous run saved (docs/state.md)."),
            .value("--state-out", name: "file", help: "Save the state at the end, to continue with the next log (may be the --state-in file)."),
            .value("--state-fences", name: "same|changed", help: "With --state-in: 'changed' accepts a different fence set (removed fences dropped, new and changed ones start unknown); default 'same' refuses it."),
            .value("--memory-budget", name: "bytes", help: "Events held in memory before sorted runs go to temporary files next to the output (default 256M; e.g. 16M, 1G). Output bytes do not depend on it."),
        ],
        discussion: """
        Events are written devices in order of first appearance, each device's events in time
        order, events of the same fix by fence identifier. With --state-out and --state-in, daily
        logs continue one another: see docs/state.md for the order of the outputs together.
        Exit codes: 0 ok, 64 usage, 65 bad data (file:line: reason; no output is left under the
        final name), 66 missing input, 74 I/O; SIGINT/SIGTERM remove the run's temporary files.
        """)

    static func run(_ args: Arguments) throws -> Int32 {
        let fencePaths = try args.requiredAll("--fences")
        let logs = try args.requiredAll("--log")
        let format = EventWriter.Format(rawValue: try args.choice("--format", EventWriter.Format.allCases.map(\.rawValue), default: "ndjson"))!
        let fields = try eventFields(args.value("--event-fields"))
        let propertyNames = try eventProperties(args.value("--event-properties"))
        // The core count only when --threads is absent (reading it costs a fraction of a
        // millisecond, a visible share of a small run).
        let threads = try args.int("--threads", default: nil, min: 1, max: 1024) ?? ProcessInfo.processInfo.activeProcessorCount
        let margin = try args.double("--exit-margin", default: 0, min: 0, max: EvaluationSettings.maximumExitMargin)!
        let dwell = try args.double("--dwell", default: nil, min: 0, max: 1e9)
        let skipInvalid = args.flag("--skip-invalid")
        let keepOffset = try args.choice("--time-zone", ["utc", "keep"], default: "utc") == "keep"
        var options = LogReaderOptions()
        options.skipInvalid = skipInvalid
        try applyLogReadingOptions(args, to: &options)
        if let f = args.value("--log-format") {
            guard let lf = LogFormat(name: f) else { throw CommandError.usage("geofence evaluate: option '--log-format' must be csv, ndjson or gpx, got '\(f)'") }
            options.format = lf
        }
        options.device = args.value("--device")
        options.threads = threads
        options.quickStart = true            // the output does not depend on batches

        let budget = try memoryBudget(args.value("--memory-budget"))
        let stateIn = args.value("--state-in"), stateOut = args.value("--state-out")
        try distinctOutputs("evaluate", ["--output": args.value("--output"), "--summary": args.value("--summary"), "--state-out": stateOut])
        let stateFences = try args.choice("--state-fences", ["same", "changed"], default: "same")
        if args.value("--state-fences") != nil && stateIn == nil {
            throw CommandError.usage("geofence evaluate: option '--state-fences' goes with --state-in")
        }

        let start = DispatchTime.now()
        let engine = try loadFences(fencePaths, crs: args.value("--crs"), layer: args.value("--layer"),
                                    fields: args.fenceFields(delimiter: "--fence-delimiter"), skipInvalid: skipInvalid,
                                    command: "evaluate", keepingProperties: propertyNames, reportSkipped: false, threads: threads)
        if let missing = engine.eventProperties?.missingNames, !missing.isEmpty, engine.compiled.index.count > 0 {
            throw CommandError.usage("geofence evaluate: option '--event-properties': no fence has a property " + missing.map { "'\($0)'" }.joined(separator: ", "))
        }
        let skippedFences = engine.skippedProblems
        let settings = EvaluationSettings(exitMargin: margin, dwell: dwell)
        let run = EvaluationRun(compiled: engine.compiled.withDefaultDwell(dwell), settings: settings, threads: threads)
        let devices = DeviceTable()
        var changes: FenceChanges? = nil
        if let stateIn {
            changes = try restore(run, from: stateIn, devices: devices, settings: settings, allowChanged: stateFences == "changed")
        }
        let loaded = DispatchTime.now()

        var summary = EvaluationSummary()
        summary.threads = threads
        summary.fences = engine.compiled.index.count
        let progress = Progress(enabled: Console.showsProgress)
        let output = args.value("--output")
        let spill = EventSpill(prefix: spillPrefix(for: output))
        defer { spill.removeAll() }
        var batch: [Fix] = []
        batch.reserveCapacity(EvaluationRun.defaultBatchSize)
        var notices: [String] = []
        // Reading and evaluating share the cores as each batch's cost says (docs/evaluation.md#sharing-the-cores).
        var sharing = CoreSharing(threads: threads)
        for path in logs {
            let reader = try LogReader(path: path, options: options, devices: devices)
            sharing.prepare(reader)
            while try reader.next(into: &batch, max: EvaluationRun.defaultBatchSize) {
                sharing.process(batch, with: run, reader: reader)
                // Held events live in arrays that grow by doubling: half the budget in events
                // keeps their memory, spare capacity included, within the budget.
                if 2 * run.heldEvents * EventSpill.eventBytes > budget {
                    try run.spill(into: spill)
                }
                progress.update(file: path, bytes: reader.bytesRead, total: reader.totalBytes, fixes: run.fixes, start: loaded)
                sharing.record(fixes: batch.count)
                sharing.prepare(reader)
            }
            for (k, v) in reader.skipped { summary.skipped[k, default: 0] += v }
            summary.bytes += reader.bytesRead
            summary.noteReading(reader.reading)
            summary.noteGzipMembers(reader.gzipMembers)
            notices += logReadingNotices(reader)
        }
        progress.clear()
        for n in notices { Console.note("geofence evaluate: \(n)\n") }

        var sink = try FileSink(path: output)
        var staged: [AtomicFile.StagedFile] = []
        var text = ""
        do {
            var writer = EventWriter(format: format, compiled: run.compiled)
            writer.fields = fields
            writer.keepOffset = keepOffset
            writer.properties = engine.eventProperties
            summary.events = try run.write(to: &sink, writer: writer, deviceName: { devices.name($0) }, spill: spill,
                                           mergeBytes: max(1 << 20, budget / 2))
            if let stateOut { staged.append(try AtomicFile.stage(run.snapshot(devices: devices).encoded(), to: stateOut)) }
            summary.fixes = run.fixes
            summary.devices = run.devicesWithFixes
            summary.fenceSeconds = Double(loaded.uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            summary.seconds = Double(DispatchTime.now().uptimeNanoseconds - loaded.uptimeNanoseconds) / 1e9
            // The line is made only when it is printed (formatting its figures costs a
            // fraction of a millisecond).
            if !Console.quiet {
                text = "geofence evaluate: " + summary.text
                if !skippedFences.isEmpty {
                    let n = skippedFences.values.reduce(0, +)
                    text += "; skipped \(counted(n, "fence problem")) (" + skippedFences.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ") + ")"
                }
                if let changes, !changes.isIdentity {
                    text += "; state fences: \(changes.removed.count) removed, \(changes.added.count) added, \(changes.changed.count) changed"
                }
                if spill.spilledEvents > 0 { text += "; \(counted(spill.spilledEvents, "event")) spilled to \(counted(spill.paths.count, "temporary run"))" }
            }
            if let s = args.value("--summary") {
                var j = summary.json
                if case .object(var o) = j {
                    o.append(("fence_problems_skipped", JSONValue.number(Double(skippedFences.values.reduce(0, +)))))
                    if let changes {
                        o.append(("state_fences", .object([("removed", .number(Double(changes.removed.count))),
                                                            ("added", .number(Double(changes.added.count))),
                                                            ("changed", .number(Double(changes.changed.count)))])))
                    }
                    o.append(("spilled_events", .number(Double(spill.spilledEvents))))
                    j = .object(o)
                }
                staged.append(try AtomicFile.stage(Array((JSONWriter.string(j) + "\n").utf8), to: s))
            }
            // Every output is complete under its temporary name: commit them together, the events last.
            staged.sort { $0.writesInPlace && !$1.writesInPlace }   // a device's write can fail, a rename hardly
            for f in staged { try f.commit() }
            try sink.finish()
        } catch {
            sink.abandon()
            for f in staged { f.abandon() }
            throw error
        }
        Console.note(text + "\n")
        return 0
    }

    /// `--event-fields`: a comma-separated list of `accuracy`, `duration`.
    static func eventFields(_ text: String?) throws -> EventWriter.Fields {
        guard let text else { return [] }
        var fields: EventWriter.Fields = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard let f = EventWriter.Fields.names.first(where: { $0.0 == name })?.1 else {
                throw CommandError.usage("geofence evaluate: option '--event-fields' takes " + EventWriter.Fields.names.map(\.0).joined(separator: ", ") + ", got '\(name)'")
            }
            fields.insert(f)
        }
        return fields
    }

    /// `--event-properties`: comma-separated property names, none empty or repeated.
    static func eventProperties(_ text: String?) throws -> [String] {
        guard let text else { return [] }
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !names.contains(""), Set(names).count == names.count else {
            throw CommandError.usage("geofence evaluate: option '--event-properties' expects distinct property names separated by commas, got '\(text)'")
        }
        return names
    }

    /// `--memory-budget`: bytes, or a number with K, M or G (powers of 1024, optional B).
    static func memoryBudget(_ text: String?) throws -> Int {
        guard let text else { return 256 << 20 }
        let t = text.uppercased().hasSuffix("B") ? String(text.uppercased().dropLast()) : text.uppercased()
        let scale: Double
        var digits = Substring(t)
        switch t.last {
        case "K": scale = 1024; digits = digits.dropLast()
        case "M": scale = 1_048_576; digits = digits.dropLast()
        case "G": scale = 1_073_741_824; digits = digits.dropLast()
        default: scale = 1
        }
        guard let v = Double(digits), v.isFinite, v >= 0, v * scale < 1e15 else {
            throw CommandError.usage("geofence evaluate: option '--memory-budget' expects bytes or a size like 16M or 1G, got '\(text)'")
        }
        return Int(v * scale)
    }

    /// Where spill runs go: next to the output (same file system), or the temporary directory for stdout.
    static func spillPrefix(for output: String?) -> String {
        guard let output, output != "-", AtomicFile.isRegularOrAbsent(output) else {
            return NSTemporaryDirectory() + "/.geofence-events.spill-\(getpid())-"
        }
        let url = URL(fileURLWithPath: output)
        return url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".spill-\(getpid())-"
    }

    /// Loads `--state-in` into the run: refused when the settings differ, or the fences differ
    /// without `--state-fences changed`.
    static func restore(_ run: EvaluationRun, from path: String, devices: DeviceTable, settings: EvaluationSettings,
                        allowChanged: Bool) throws -> FenceChanges {
        let state = try EvaluationState(decoding: try library { () throws(GeofenceError) in try readFile(path, what: "state file") }, path: path)
        guard state.exitMargin == settings.exitMargin && state.defaultDwell == settings.dwell else {
            func dwellText(_ d: Double?) -> String { d.map { "\($0) s" } ?? "none" }
            throw CommandError.data("\(path): the state was written with --exit-margin \(state.exitMargin) and --dwell \(dwellText(state.defaultDwell)); this run uses \(settings.exitMargin) and \(dwellText(settings.dwell)) (use the same settings to continue)")
        }
        let records = run.compiled.fenceRecords()
        let changes = FenceChanges(from: state.fences, to: records)
        if !changes.isIdentity && !allowChanged {
            func some(_ ids: [String]) -> String { ids.prefix(3).map { "\"\($0)\"" }.joined(separator: ", ") + (ids.count > 3 ? ", ..." : "") }
            var parts: [String] = []
            if !changes.removed.isEmpty { parts.append("\(changes.removed.count) removed (\(some(changes.removed)))") }
            if !changes.added.isEmpty { parts.append("\(changes.added.count) added (\(some(changes.added)))") }
            if !changes.changed.isEmpty { parts.append("\(changes.changed.count) changed (\(some(changes.changed)))") }
            if parts.isEmpty { parts.append("the same fences in another order") }
            throw CommandError.data("\(path): the state was written for another fence set: " + parts.joined(separator: ", ")
                                    + "; pass --state-fences changed to continue with these fences (docs/state.md)")
        }
        run.restore(state, changes: changes, devices: devices)
        return changes
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
        var line = "\r\(file): \(counted(fixes, "fix", "fixes")), \(Int(rate)) fixes/s"
        if let total, total > 0 {
            let f = Double(bytes) / Double(total)
            line += String(format: ", %.1f%% of %.1f MB", f * 100, Double(total) / 1e6)
            if f > 0.01 { line += String(format: ", ETA %.0f s", secs / f - secs) }
        }
        Console.err((line + "\u{1B}[K"))
        shown = true
    }

    func clear() {
        if shown { Console.err("\r\u{1B}[K") }
    }
}
