import Foundation
import GeofenceKit

enum ValidateCommand {
    static let spec = CommandSpec(
        name: "validate",
        summary: "Check fence files: counts by shape, problems with reasons, warnings that matter on a phone.",
        usage: "--fences <file> [--fences <file> ...] [--layer NAME] [--crs EPSG:n] [--repair -o <out.geojson|.gpkg|.fgb>] [--min-radius M] [--max-radius M] [--all]",
        options: [
            .value("--fences", "-f", name: "file", repeatable: true, help: fencesHelp),
            layerOption,
        ] + fenceFieldOptions() + [
            .value("--crs", name: "crs", help: "Coordinate reference system of the input, e.g. EPSG:2154 (default: WGS84 lon/lat)."),
            .flag("--repair", help: "Repair what can be repaired (close rings, GEOSMakeValid) and write the result with -o."),
            .value("--output", "-o", name: "file", help: "Where --repair writes the fences: GeoPackage for .gpkg, FlatGeobuf for .fgb, else GeoJSON."),
            .value("--min-radius", name: "metres", help: "Warn under this radius (default 100: iOS fires unreliably for smaller regions)."),
            .value("--max-radius", name: "metres", help: "Warn over this radius (default 100000; iOS's maximumRegionMonitoringDistance is device-dependent)."),
            .flag("--all", help: "List every warning (default: the first 10 of each kind)."),
        ],
        discussion: """
        Exit status: 0 when every fence is usable (warnings do not fail), 65 when there are
        problems (or, with --repair, problems repair cannot fix), 64 usage, 66 missing file, 74 I/O.
        """)

    static func run(_ args: Arguments) throws -> Int32 {
        let paths = try args.requiredAll("--fences")
        let repair = args.flag("--repair")
        let output = args.value("--output")
        if repair && output == nil { throw CommandError.usage("geofence validate: --repair needs -o <out.geojson|.gpkg|.fgb> to write the repaired fences") }
        if !repair && output != nil { throw CommandError.usage("geofence validate: -o is only used with --repair") }
        let limits = PhoneLimits(minRadius: try args.double("--min-radius", default: 100, min: 0)!,
                                 maxRadius: try args.double("--max-radius", default: 100_000, min: 0)!)
        guard limits.minRadius <= limits.maxRadius else {
            throw CommandError.usage("geofence validate: '--min-radius' \(limits.minRadius) is larger than '--max-radius' \(limits.maxRadius)")
        }
        let set = try FenceSet.load(paths: paths, crs: args.value("--crs"), layer: args.value("--layer"), fields: args.fenceFields())
        let validator = try FenceValidator()

        var out = ""
        // Files as given; a compiled fence file stands for the files its fences came from.
        var listed: [String] = [], seen = Set<String>()
        for f in set.files where !CompiledFenceFile.isCompiled(path: f) && seen.insert(f).inserted { listed.append(f) }
        for f in set.fences where seen.insert(f.source.file).inserted { listed.append(f.source.file) }
        for file in listed {
            let fs = set.fences.filter { $0.source.file == file }
            let circles = fs.filter { $0.shape.isCircle }.count
            out += "\(file): " + RecordCount(file: file, set: set).text + ": \(counted(fs.count, "fence"))"
                + " (\(counted(circles, "circle")), \(counted(fs.count - circles, "polygon")))\n"
        }
        let problemFences = Set(set.problems.compactMap { $0.fenceID }).count
        out += "total: \(counted(set.fences.count, "fence")), \(counted(set.problems.count, "problem"))"
        out += set.problems.isEmpty ? "\n" : " (\(counted(problemFences, "fence")) affected)\n"
        if !set.problems.isEmpty {
            var byKind: [FenceProblem.Kind: Int] = [:]
            for p in set.problems { byKind[p.kind, default: 0] += 1 }
            out += "\nproblems by reason:\n"
            for k in FenceProblem.Kind.allCases where byKind[k] != nil { out += "  \(k.rawValue): \(byKind[k]!)\n" }
            out += "\nproblems:\n"
            for p in set.problems { out += "  \(p)\(p.repairable ? " [repairable]" : "")\n" }
        }

        // By location: a later duplicate's problem leaves the first definition usable.
        let bad = Set(set.problems.filter { !$0.repairable && $0.kind != .duplicateIdentifier }.map(\.location))
        let warnings = validator.warnings(set.fences.filter { !bad.contains($0.source) }, limits: limits)
        out += "\nphone warnings: \(warnings.count)\n"
        if !warnings.isEmpty {
            let limit = args.flag("--all") ? Int.max : 10
            for kind in FenceWarning.Kind.allCases {
                let ws = warnings.filter { $0.kind == kind }
                guard !ws.isEmpty else { continue }
                out += "  \(kind.rawValue): \(ws.count)\n"
                for w in ws.prefix(limit) { out += "    \(w)\n" }
                if ws.count > limit { out += "    ... \(ws.count - limit) more (--all lists every one)\n" }
            }
        }

        var status: Int32 = set.problems.isEmpty ? 0 : 65
        // The repaired file is committed only after the report reached stdout (docs/errors.md#outputs).
        try StagedOutputs.commitTogether { outputs in
            if repair, let output {
                let r = validator.repair(set)
                if r.unrepairable.isEmpty {
                    if let format = VectorFormat(path: output) {
                        outputs.add(try VectorFenceWriter.stage(r.fences, to: output, format: format))
                    } else {
                        try outputs.stage(FenceWriter.geoJSON(r.fences), to: output)
                    }
                    out += "\nrepair: \(counted(r.repaired.count, "fence")) repaired, \(r.fences.count) written to \(output)\n"
                    status = 0
                } else {
                    out += "\nrepair: \(counted(r.unrepairable.count, "problem")) cannot be repaired; nothing written:\n"
                    for p in r.unrepairable { out += "  \(p)\n" }
                    status = 65
                }
            }
            try Console.out(out)
        }
        return status
    }
}
