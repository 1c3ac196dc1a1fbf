import Foundation
import GeofenceKit

/// `geofence compile`: fences compiled once into a file every command opens in milliseconds.
enum CompileCommand {
    static let spec = CommandSpec(
        name: "compile",
        summary: "Compile fence files into one compiled fence file (.gfc) that every --fences option accepts.",
        usage: "--fences <file> [--fences <file> ...] -o <out.gfc> [--crs EPSG:n] [--skip-invalid]",
        options: [
            .value("--fences", "-f", name: "file", repeatable: true, help: fencesHelp + " Or a compiled file."),
            layerOption,
        ] + fenceFieldOptions() + [
            .value("--output", "-o", name: "file", help: "The compiled fence file to write (written atomically)."),
            .value("--crs", name: "crs", help: "CRS of the fence input (default: WGS84); the compiled file is WGS84."),
            .flag("--skip-invalid", help: "Leave out fences with problems instead of stopping (counts on stderr)."),
        ],
        discussion: """
        The compiled file holds the fences as the index compiles them (circles, polygon
        rings, identifiers, options, the packed R-tree) and, in side sections, their
        properties and sources: commands open it without parsing or rebuilding and give the
        same answers as with the source files. Little-endian, versioned, checksummed
        (docs/compiled-fences.md); a damaged file is refused with exit 65.
        """)

    static func run(_ args: Arguments) throws -> Int32 {
        let paths = try args.requiredAll("--fences")
        guard let output = args.value("--output") else { throw CommandError.usage("geofence compile: missing required option '-o'") }
        let engine = try loadFences(paths, crs: args.value("--crs"), layer: args.value("--layer"), fields: args.fenceFields(), skipInvalid: args.flag("--skip-invalid"), command: "compile")
        let compiled = engine.compiled
        let fences = try library { () throws(GeofenceError) in try compiled.loadFences() }
        try library { () throws(GeofenceError) in try CompiledFenceFile.write(index: compiled.index, fences: fences, to: output) }
        let circles = fences.reduce(0) { $0 + ($1.shape.isCircle ? 1 : 0) }
        var st = stat()
        let size = stat(output, &st) == 0 ? Int(st.st_size) : 0
        print("\(output): \(counted(fences.count, "fence")) compiled (\(counted(circles, "circle")), \(counted(fences.count - circles, "polygon"))), \(counted(size, "byte"))")
        return 0
    }
}
