import GeofenceKit

/// A small hand-written command-line parser: `--name value`, `--name=value`,
/// short aliases (`-o`), flags, repeatable options and `--help`. Every mistake is
/// a usage error (exit 64) that names the option and points at `--help`.
struct OptionSpec {
    var names: [String]          // e.g. ["--output", "-o"]; the first is canonical
    var valueName: String?       // nil: a flag
    var repeatable = false
    var help: String

    static func flag(_ names: String..., help: String) -> OptionSpec {
        OptionSpec(names: names, valueName: nil, help: help)
    }
    static func value(_ names: String..., name: String, repeatable: Bool = false, help: String) -> OptionSpec {
        OptionSpec(names: names, valueName: name, repeatable: repeatable, help: help)
    }
}

struct CommandSpec {
    var name: String
    var summary: String
    var usage: String
    var options: [OptionSpec]
    var discussion: String = ""

    var helpText: String {
        var s = "OVERVIEW: \(summary)\n\nUSAGE: geofence \(name) \(usage)\n\nOPTIONS:\n"
        let all = options + (options.contains { $0.names[0] == "--quiet" } ? [] : [CommandSpec.quietOption])
            + [.flag("--help", "-h", help: "Show this help.")]
        let rows = all.map { o -> (String, String) in
            var left = o.names.joined(separator: ", ")
            if let v = o.valueName { left += " <\(v)>" }
            return (left, o.help + (o.repeatable ? " (repeatable)" : ""))
        }
        let width = min(34, (rows.map { $0.0.count }.max() ?? 0) + 2)
        for (l, r) in rows {
            if l.count + 2 > width {
                s += "  \(l)\n" + String(repeating: " ", count: width + 2) + r + "\n"
            } else {
                s += "  " + l + String(repeating: " ", count: width - l.count) + r + "\n"
            }
        }
        if !discussion.isEmpty { s += "\n" + discussion + "\n" }
        return s
    }
}

extension CommandSpec {
    /// `-q/--quiet`, accepted by every command (a command may list its own wording of it).
    static let quietOption = OptionSpec.flag("--quiet", "-q", help: "No progress, summary or notes on stderr (errors still go there).")
}

struct Arguments {
    let command: String
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var helpRequested = false

    init(_ args: [String], spec: CommandSpec) throws(CommandError) {
        command = spec.name
        var lookup: [String: OptionSpec] = [:]
        for o in spec.options + [CommandSpec.quietOption] where lookup[o.names[0]] == nil { for n in o.names { lookup[n] = o } }
        var i = 0
        while i < args.count {
            let a = args[i]
            i += 1
            if a == "--help" || a == "-h" { helpRequested = true; continue }
            var name = a
            var inline: String?
            if a.hasPrefix("--"), let eq = a.firstIndex(of: "=") {
                name = String(a[..<eq])
                inline = String(a[a.index(after: eq)...])
            }
            guard name.hasPrefix("-"), name.count > 1, Double(name) == nil else {
                throw .usage("geofence \(command): unexpected argument '\(a)' (see 'geofence \(command) --help')")
            }
            guard let o = lookup[name] else {
                throw .usage("geofence \(command): unknown option '\(name)' (see 'geofence \(command) --help')")
            }
            let key = o.names[0]
            if o.valueName == nil {
                guard inline == nil else { throw .usage("geofence \(command): option '\(name)' takes no value") }
                flags.insert(key)
                continue
            }
            let v: String
            if let inline { v = inline } else {
                guard i < args.count else {
                    throw .usage("geofence \(command): option '\(name)' needs a value <\(o.valueName!)>")
                }
                v = args[i]
                i += 1
            }
            if !o.repeatable, values[key] != nil {
                throw .usage("geofence \(command): option '\(name)' given more than once")
            }
            values[key, default: []].append(v)
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }

    func required(_ name: String) throws(CommandError) -> String {
        guard let v = value(name) else { throw .usage("geofence \(command): missing required option '\(name)'") }
        return v
    }

    func requiredAll(_ name: String) throws(CommandError) -> [String] {
        let v = all(name)
        guard !v.isEmpty else { throw .usage("geofence \(command): missing required option '\(name)'") }
        return v
    }

    func double(_ name: String, default d: Double? = nil, min lo: Double? = nil, max hi: Double? = nil) throws(CommandError) -> Double? {
        guard let s = value(name) else { return d }
        guard let v = Double(s), v.isFinite else {
            throw .usage("geofence \(command): option '\(name)' expects a number, got '\(s)'")
        }
        if let lo, v < lo { throw .usage("geofence \(command): option '\(name)' must be ≥ \(fmt(lo)), got '\(s)'") }
        if let hi, v > hi { throw .usage("geofence \(command): option '\(name)' must be ≤ \(fmt(hi)), got '\(s)'") }
        return v
    }

    func int(_ name: String, default d: Int? = nil, min lo: Int? = nil, max hi: Int? = nil) throws(CommandError) -> Int? {
        guard let s = value(name) else { return d }
        guard let v = Int(s) else { throw .usage("geofence \(command): option '\(name)' expects an integer, got '\(s)'") }
        if let lo, v < lo { throw .usage("geofence \(command): option '\(name)' must be ≥ \(lo), got '\(s)'") }
        if let hi, v > hi { throw .usage("geofence \(command): option '\(name)' must be ≤ \(hi), got '\(s)'") }
        return v
    }

    /// `LAT,LON`, latitude first (as Core Location writes it).
    func latLon(_ name: String) throws(CommandError) -> (lat: Double, lon: Double)? {
        guard let s = value(name) else { return nil }
        let parts = s.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]), lat.isFinite, lon.isFinite else {
            throw .usage("geofence \(command): option '\(name)' expects LAT,LON in degrees (latitude first), got '\(s)'")
        }
        guard (-90...90).contains(lat) else { throw .usage("geofence \(command): latitude \(parts[0]) in '\(name)' is out of range [-90, 90]") }
        guard (-180...180).contains(lon) else { throw .usage("geofence \(command): longitude \(parts[1]) in '\(name)' is out of range [-180, 180]") }
        return (lat, lon)
    }

    func choice(_ name: String, _ allowed: [String], default d: String) throws(CommandError) -> String {
        let v = value(name) ?? d
        guard allowed.contains(v) else {
            throw .usage("geofence \(command): option '\(name)' must be one of \(allowed.joined(separator: ", ")), got '\(v)'")
        }
        return v
    }

    private func fmt(_ d: Double) -> String { d == d.rounded() ? String(Int(d)) : String(d) }
}
