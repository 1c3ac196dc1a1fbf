import GeofenceBase
import GeofenceIndex

/// Fences gathered from one or more files, with every problem found and
/// duplicate identifiers across files rejected (docs/fences.md).
public struct FenceSet: Sendable {
    /// The fences that were loaded, in file order; a duplicate identifier keeps only the
    /// first definition here.
    public var fences: [Fence]
    /// Every problem of every file, sorted by file (in ``files`` order), then line or feature.
    public var problems: [FenceProblem]
    /// The paths of the files added, in order.
    public var files: [String]

    /// A set from its parts, as given (no duplicate check, no sorting); empty by default.
    public init(fences: [Fence] = [], problems: [FenceProblem] = [], files: [String] = []) {
        self.fences = fences; self.problems = problems; self.files = files
    }

    /// Loads every file in order. Whole-file errors are thrown; per-fence problems are collected.
    /// Polygons are not checked with GEOS here (see ``load(paths:crs:defaults:checkPolygons:)``).
    /// - Throws: the first whole-file error, as ``FenceLoader/load(path:)`` throws it.
    /// - Complexity: O(total file size + fences + p log p) for p problems.
    public static func load(paths: [String], loader: FenceLoader) throws(GeofenceError) -> FenceSet {
        var set = FenceSet()
        for p in paths {
            let f = try loader.load(path: p)
            set.add(f)
        }
        return set
    }

    /// Adds a file's fences; a fence whose identifier is already present becomes a problem.
    /// - Complexity: O(fences in the set + fences in `file` + p log p · files) for p problems.
    public mutating func add(_ file: FenceFile) {
        files.append(file.path)
        problems.append(contentsOf: file.problems)
        // Identifiers are compared bytewise (docs/fences.md): NFC and NFD spellings are two ids.
        var table = IdentifierTable(capacity: fences.count + file.fences.count)
        for f in fences { _ = table.firstOrInsert(f.id) { fences[$0].id } }
        if fences.isEmpty {
            // The first file: its fences are shared, not copied, unless it repeats an identifier.
            let own = file.fences
            if own.indices.allSatisfy({ table.firstOrInsert(own[$0].id, idAt: { own[$0].id }) == nil }) {
                fences = own
                sortProblems()
                return
            }
            table = IdentifierTable(capacity: file.fences.count)
        }
        fences.reserveCapacity(fences.count + file.fences.count)
        for f in file.fences {
            if let prior = table.firstOrInsert(f.id, idAt: { fences[$0].id }) {
                problems.append(FenceProblem(.duplicateIdentifier, "duplicate identifier \"\(f.id)\" (first defined at \(fences[prior].source))",
                                             at: f.source, fence: f.id))
                continue
            }
            fences.append(f)
        }
        sortProblems()
    }

    /// Problems by file (in ``files`` order), then line or feature.
    private mutating func sortProblems() {
        problems.sort { a, b in
            // Stable report order: by file as given, then line/feature.
            let fa = files.firstIndex(of: a.location.file) ?? 0, fb = files.firstIndex(of: b.location.file) ?? 0
            if fa != fb { return fa < fb }
            return (a.location.line ?? a.location.feature ?? 0) < (b.location.line ?? b.location.feature ?? 0)
        }
    }

    /// The number of circle fences.
    /// - Complexity: O(fences).
    public var circleCount: Int { fences.reduce(0) { $0 + ($1.shape.isCircle ? 1 : 0) } }
    /// The number of polygon and multipolygon fences.
    /// - Complexity: O(fences).
    public var polygonCount: Int { fences.count - circleCount }
}
