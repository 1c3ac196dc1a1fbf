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

    /// The side sections of clean GeoJSON/CSV fence files (the fast readers take them whole),
    /// read again fence by fence; nil when they are not such files or do not give exactly the
    /// fences of `index` in slot order (the caller then reads the fences whole).
    static func streamedSides(_ paths: [String], fields: FenceFieldOptions, crs: String?, index: FenceIndex) throws(GeofenceError)
        -> CompiledFenceFile.SideSections? {
        guard crs == nil else { return nil }
        var loader = FenceLoader()
        loader.fields = fields
        var sides = CompiledFenceFile.SideSections(capacity: index.slotCount)
        let n = index.slotCount
        let done = try loader.forEachFastFence(paths: paths) { f in
            guard sides.count < n, index.identifier(of: Int32(sides.count)) == f.id else { return false }
            sides.add(f)
            return true
        }
        return done && sides.count == n ? sides : nil
    }

    static func run(_ args: Arguments) throws -> Int32 {
        let paths = try args.requiredAll("--fences")
        guard let output = args.value("--output") else { throw CommandError.usage("geofence compile: missing required option '-o'") }
        let engine = try loadFences(paths, crs: args.value("--crs"), layer: args.value("--layer"), fields: args.fenceFields(), skipInvalid: args.flag("--skip-invalid"), command: "compile")
        let compiled = engine.compiled
        let index = compiled.index
        let count = index.slotCount
        let circles = (0..<Int32(count)).reduce(0) { $0 + (index.isPolygon($1) ? 0 : 1) }
        let fields = try args.fenceFields(), crs = args.value("--crs")
        try library { () throws(GeofenceError) in
            if let sides = try streamedSides(paths, fields: fields, crs: crs, index: index) {
                // Clean text files: their properties and sources read fence by fence, never all held.
                try CompiledFenceFile.write(index: index, options: compiled.optionTable, sides: sides, to: output)
            } else {
                try CompiledFenceFile.write(index: index, fences: try compiled.loadFences(), to: output)
            }
        }
        var st = stat()
        let size = stat(output, &st) == 0 ? Int(st.st_size) : 0
        print("\(output): \(counted(count, "fence")) compiled (\(counted(circles, "circle")), \(counted(count - circles, "polygon"))), \(counted(size, "byte"))")
        return 0
    }
}
