import GeofenceKit

/// What `validate` says it read from one file: its records (CSV rows, or features of
/// GeoJSON and GDAL sources), counted as the distinct rows or features that gave a fence or
/// a problem, before saying how many became fences.
struct RecordCount {
    /// Distinct records of the file.
    var records = 0
    /// Whether the records are CSV rows (located by line) rather than features.
    var rows = false

    /// The records of `file` in `set`.
    init(file: String, set: FenceSet) {
        var lines = Set<Int>(), features = Set<Int>()
        func add(_ at: SourceLocation) {
            if let l = at.line { lines.insert(l) } else if let f = at.feature { features.insert(f) }
        }
        for f in set.fences where f.source.file == file { add(f.source) }
        for p in set.problems where p.location.file == file { add(p.location) }
        rows = features.isEmpty && !lines.isEmpty
        records = lines.count + features.count
    }

    /// `8 features read`, `1 row read`.
    var text: String { counted(records, rows ? "row" : "feature") + " read" }
}
