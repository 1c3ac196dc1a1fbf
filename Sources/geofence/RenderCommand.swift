import Foundation
import GeofenceKit

enum RenderCommand {
    static let spec = CommandSpec(
        name: "render",
        summary: "Draw one device's replay as SVG: trace, fences, regions at each re-plan, events caught/late/missed.",
        usage: "--fences <file> ... --log <file> [--device ID] [--strategy guaranteed|centre|trigger] [OS options] -o OUT.svg",
        options: [
            .value("--fences", "-f", name: "file", repeatable: true, help: fencesHelp),
            layerOption,
            .value("--log", "-l", name: "file", repeatable: true, help: "Location log (CSV, NDJSON, GPX, optionally .gz)."),
            .value("--device", name: "id", help: "Which device to draw (default: the first in the log)."),
            .value("--strategy", name: "name", help: "guaranteed (default), centre or trigger."),
        ] + osModelOptions + [
            .value("--output", "-o", name: "file", help: "The SVG file to write."),
        ] + logReadingOptions + [
            .flag("--skip-invalid", help: "Skip bad rows and bad fences."),
        ])

    static func run(_ args: Arguments) throws -> Int32 {
        let fencePaths = try args.requiredAll("--fences")
        let logs = try args.requiredAll("--log")
        let output = try args.required("--output")
        let strategy = Planner.Strategy(rawValue: try args.choice("--strategy", Planner.Strategy.allCases.map(\.rawValue), default: "guaranteed"))!
        let os = try osModel(args)
        var options = LogReaderOptions()
        options.skipInvalid = args.flag("--skip-invalid")
        try applyLogReadingOptions(args, to: &options)

        let set = try FenceSet.load(paths: fencePaths, crs: nil, layer: args.value("--layer"))
        let (fences, _) = try set.usable(skipInvalid: args.flag("--skip-invalid"))
        let compiled = try CompiledFences(fences)
        let circles = try Simulator.osCircles(fences)
        let devices = DeviceTable()
        var fixes: [Fix] = []
        for path in logs {
            let reader = try LogReader(path: path, options: options, devices: devices)
            fixes += try reader.readAll()
            for n in logReadingNotices(reader) { Console.note("geofence render: \(n)\n") }
        }
        guard devices.count > 0 else { throw CommandError.data("\(logs[0]): the log has no fixes") }
        let device: Int32
        if let name = args.value("--device") {
            guard let d = devices.index(of: name) else {
                throw CommandError.usage("geofence render: device '\(name)' is not in the log (devices: \(devices.names.prefix(10).joined(separator: ", "))\(devices.count > 10 ? ", ..." : ""))")
            }
            device = d
        } else { device = 0 }
        let mine = fixes.filter { $0.device == device }
        let run = EvaluationRun(compiled: compiled, settings: EvaluationSettings(), threads: 1)
        run.process(mine)
        let truth = run.events.filter { $0.type != .dwell }.map { ReportedEvent(device: $0.device, fence: $0.fence, type: $0.type, time: $0.time) }
        let sim = Simulator(compiled: compiled, circles: circles, os: os)
        var detected: [ReportedEvent] = []
        var plans: [(time: Double, regions: [Region])] = []
        let counts = sim.run(strategy: strategy, device: device, fixes: mine, truth: truth, detected: &detected, plans: &plans)
        let title = "device \(devices.name(device)), strategy \(strategy.rawValue): \(mine.count) fixes, \(plans.count) plans, "
            + "\(counts.matchedEnter + counts.matchedExit)/\(counts.truthEnter + counts.truthExit) events caught"
        let svg = SVGRenderer().render(fences: fences, circles: circles, fixes: mine, truth: truth, detected: detected, plans: plans, title: title)
        try AtomicFile.write(svg, to: output)
        Console.note("geofence render: \(title); wrote \(output)\n")
        return 0
    }
}
