import Foundation
import GeofenceKit

enum SimulateCommand {
    static let spec = CommandSpec(
        name: "simulate",
        summary: "Replay traces through the nearest-K rotation and an OS model; compare with full evaluation.",
        usage: "--fences <file> ... --log <file> ... [--strategy guaranteed|centre|trigger|all] [--slots 20] [--min-radius M] [--max-radius M] [--delay S] [--exit-distance M] [--horizon M|inf] [--speed-cap V] [--acceleration A] [--trigger-radius M] [--centre-radius M] [--sweep CHART.svg] [-o REPORT.json] [--events OUT]",
        options: [
            .value("--fences", "-f", name: "file", repeatable: true, help: fencesHelp),
            layerOption,
        ] + fenceFieldOptions(delimiter: "--fence-delimiter") + [
            .value("--log", "-l", name: "file", repeatable: true, help: "Location log (CSV, NDJSON, GPX, optionally .gz)."),
            .value("--strategy", name: "name", help: "guaranteed (ours), centre, trigger, or all (default all)."),
        ] + osModelOptions + [
            .flag("--no-clusters", help: "Guaranteed strategy: never cover dense clusters with one region (to measure what clusters save)."),
            .value("--horizon", name: "metres", help: "Guaranteed: the refresh radius aimed for; the fewest nearest fences that allow it are monitored (default: adaptive to the fence density; 'inf' fills every slot)."),
            .value("--speed-cap", name: "m/s", help: "Guaranteed: the largest speed believed (default 300; 0 plans for an instant OS)."),
            .value("--acceleration", name: "m/s²", help: "Guaranteed: the largest sustained acceleration believed (default 0.2; 0: the speed holds until the next plan)."),
            .value("--trigger-radius", name: "metres", help: "trigger baseline: movement trigger radius (default 1000)."),
            .value("--centre-radius", name: "metres", help: "centre baseline: refresh radius (default 2500)."),
            .value("--sweep", name: "chart.svg", help: "Also sweep each strategy's parameter; print recall vs registrations/km and write the Pareto chart here."),
            .value("--output", "-o", name: "file", help: "Write the JSON report here."),
            .value("--events", name: "file", help: "Write every strategy's reported events (NDJSON, with a \"strategy\" field)."),
            .value("--threads", "-j", name: "n", help: "Worker threads (default: all cores)."),
        ] + logReadingOptions + [
            .flag("--skip-invalid", help: "Skip bad rows and bad fences, count them (default: stop at the first, exit 65)."),
            .value("--crs", name: "crs", help: "CRS of the fence input (default: WGS84)."),
        ],
        discussion: """
        Ground truth is 'geofence evaluate' on the same fences and trace (no margin). The ideal OS
        is --delay 0 --exit-distance 0 --min-radius 0. Events are matched by device, fence and type
        within 15 minutes. Prints a table (strategies as columns) on stdout.
        """)

    static func run(_ args: Arguments) throws -> Int32 {
        let fencePaths = try args.requiredAll("--fences")
        let logs = try args.requiredAll("--log")
        try distinctOutputs("simulate", ["--output": args.value("--output"), "--events": args.value("--events"), "--sweep": args.value("--sweep")])
        let which = try args.choice("--strategy", ["all"] + Planner.Strategy.allCases.map(\.rawValue), default: "all")
        let strategies = which == "all" ? Planner.Strategy.allCases : [Planner.Strategy(rawValue: which)!]
        let os = try osModel(args)
        let threads = try args.int("--threads", default: ProcessInfo.processInfo.activeProcessorCount, min: 1, max: 1024)!
        let skipInvalid = args.flag("--skip-invalid")
        var options = LogReaderOptions()
        options.skipInvalid = skipInvalid
        try applyLogReadingOptions(args, to: &options)

        let tuning = try strategyTuning(args)
        let sweepPath = args.value("--sweep")
        if let p = sweepPath, !p.hasSuffix(".svg") { throw CommandError.usage("geofence simulate: --sweep wants an .svg path, got '\(p)'") }
        // One progress line on a terminal, phase by phase (the replay of a large log takes a while).
        let progress = PhaseProgress(command: "simulate")
        defer { progress.finish() }
        progress.phase(Geofencer.readingPhase(fencePaths))
        let set = try FenceSet.load(paths: fencePaths, crs: args.value("--crs"), layer: args.value("--layer"),
                                    fields: args.fenceFields(delimiter: "--fence-delimiter"))
        let (fences, _) = try set.usable(skipInvalid: skipInvalid)
        progress.phase("indexing \(counted(fences.count, "fence"))")
        let compiled = try CompiledFences(fences)
        progress.phase("enclosing circles of \(counted(fences.count, "fence"))")
        let circles = try Simulator.osCircles(fences)
        let devices = DeviceTable()
        var fixes: [Fix] = []
        for path in logs {
            progress.phase("reading \((path as NSString).lastPathComponent)")
            let reader = try LogReader(path: path, options: options, devices: devices)
            fixes += try reader.readAll()
            for n in logReadingNotices(reader) { Console.note("geofence simulate: \(n)\n") }
        }
        // Devices with at least one fix (an id seen only on skipped rows is not a device here).
        var hasFix = [Bool](repeating: false, count: devices.count)
        for f in fixes { hasFix[Int(f.device)] = true }
        let deviceCount = hasFix.reduce(0) { $0 + ($1 ? 1 : 0) }
        progress.phase("ground truth: evaluating \(counted(fixes.count, "fix", "fixes"))")
        let prepared = Simulator.prepare(compiled: compiled, fixes: fixes, devices: devices.count, threads: threads)
        progress.phase("replaying \(counted(strategies.count, "strategy", "strategies")) over \(counted(deviceCount, "device"))")
        let report = Simulator.simulate(compiled: compiled, circles: circles, os: os, strategies: strategies,
                                        clusters: !args.flag("--no-clusters"), prepared: prepared, deviceNames: devices.names,
                                        threads: threads, tuning: tuning)
        var header = "geofence simulate: \(counted(fixes.count, "fix", "fixes")), \(counted(deviceCount, "device")), \(counted(fences.count, "fence")); OS: \(os.slots) slots, min radius \(Int(os.minRadius)) m, max radius \(Int(os.maxRadius)) m, delay \(Int(os.delay)) s, exit distance \(Int(os.exitDistance)) m\n"
        header += report.table
        var json = report.json
        // The chart, the report and the events are staged and committed together after the
        // table is printed (docs/errors.md#outputs).
        try StagedOutputs.commitTogether { outputs in
            if let chart = sweepPath {
                progress.phase("sweeping the strategies' parameters")
                let sweep = Sweep.run(compiled: compiled, circles: circles, os: os, clusters: !args.flag("--no-clusters"), prepared: prepared,
                                      deviceNames: devices.names, threads: threads)
                header += "\nsweep (recall = matched enter and exit / ground truth):\n" + sweep.table
                let title = "\(logs.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")): \(counted(deviceCount, "device")), \(counted(fences.count, "fence")); OS \(os.slots) slots, delay \(Int(os.delay)) s, exit \(Int(os.exitDistance)) m, min radius \(Int(os.minRadius)) m"
                try outputs.stage(sweep.svg(title: title), to: chart)
                if case .object(var o) = json { o.append(("sweep", sweep.json)); json = .object(o) }
            }
            try outputs.stage(JSONWriter.string(json) + "\n", to: args.value("--output"))
            if let e = args.value("--events") {
                var text = ""
                for s in report.strategies {
                    for ev in report.detected[s.name] ?? [] {
                        text += "{\"strategy\":\"\(s.name)\",\"device\":"
                        JSONWriter.writeString(devices.name(ev.device), to: &text)
                        text += ",\"fence\":"
                        JSONWriter.writeString(fences[Int(ev.fence)].id, to: &text)
                        text += ",\"type\":\"\(ev.type.name)\",\"time\":\"\(EventWriter.iso8601(ev.time))\"}\n"
                    }
                }
                try outputs.stage(text, to: e)
            }
            progress.finish()
            try Console.out(header)
        }
        return 0
    }
}

/// The OS model options shared by `simulate` and `render` (read by `osModel`).
let osModelOptions: [OptionSpec] = [
    .value("--slots", "-k", name: "n", help: "Regions the OS monitors at once (default 20, iOS; Android 100)."),
    .value("--min-radius", name: "metres", help: "Smallest reliable region radius; the OS monitors max(r, this) (default 100)."),
    .value("--max-radius", name: "metres", help: "Largest region radius the OS accepts (default 100000)."),
    .value("--delay", name: "seconds", help: "OS event delivery delay (default 20)."),
    .value("--exit-distance", name: "metres", help: "How far past the edge the OS reports an exit (default 100)."),
]

/// The strategies' parameters of `simulate`'s options (`--horizon`, `--speed-cap`,
/// `--trigger-radius`, `--centre-radius`).
func strategyTuning(_ args: Arguments) throws -> StrategyTuning {
    var t = StrategyTuning()
    if let h = args.value("--horizon") {
        if h == "inf" { t.horizon = .infinity }
        else { t.horizon = try args.double("--horizon", min: 0) }
    }
    t.speedCap = try args.double("--speed-cap", default: t.speedCap, min: 0)!
    t.acceleration = try args.double("--acceleration", default: t.acceleration, min: 0, max: 100)!
    t.triggerRadius = try args.double("--trigger-radius", default: t.triggerRadius, min: 100)!
    t.centreRadius = try args.double("--centre-radius", default: t.centreRadius, min: 600)!
    return t
}

/// The OS model of the options in `osModelOptions`.
func osModel(_ args: Arguments) throws -> OSModel {
    var os = OSModel()
    os.slots = try args.int("--slots", default: 20, min: 2, max: 100_000)!
    // Distances up to 20,000 km (half the Earth's circumference); delays up to a day.
    os.minRadius = try args.double("--min-radius", default: os.minRadius, min: 0, max: 2e7)!
    os.maxRadius = try args.double("--max-radius", default: os.maxRadius, min: 1, max: 2e7)!
    os.delay = try args.double("--delay", default: os.delay, min: 0, max: 86_400)!
    os.exitDistance = try args.double("--exit-distance", default: os.exitDistance, min: 0, max: 2e7)!
    guard os.minRadius <= os.maxRadius else {
        throw CommandError.usage("geofence \(args.command): '--min-radius' \(os.minRadius) is larger than '--max-radius' \(os.maxRadius)")
    }
    return os
}
