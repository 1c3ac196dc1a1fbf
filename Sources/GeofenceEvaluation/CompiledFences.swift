import GeofenceLogs
import GeofenceBase
import GeofenceIndex
import Synchronization

/// Fences compiled for the hot path: the spatial index, options in flat arrays
/// indexed by slot, and the source fences (properties, sources) for commands that
/// write fences back, held or read from a compiled fence file only when asked for.
public struct CompiledFences: Sendable {
    /// The packed R-tree; slot k holds the k-th fence compiled.
    public let index: FenceIndex
    /// The fences' options per slot, with the default dwell applied.
    public let options: CompiledOptions
    /// The fences' own options per slot (notify flags, dwell, repeats, note).
    public var optionTable: FenceOptionTable { options.table }
    /// Where the full fences come from: held, a compiled fence file, or the source files read again.
    let source: FenceSource

    /// The fences in slot order, with their properties and sources. From a compiled fence
    /// file they are read on first use (see `loadFences()`, which throws instead of
    /// stopping the program on a file damaged since it was opened).
    public var fences: [Fence] {
        do { return try loadFences() } catch { preconditionFailure("compiled fence file \(error)") }
    }

    /// The fences in slot order, with their properties and sources; read from the compiled
    /// fence file (or again from the source files) on first use, then kept.
    /// - Throws: `GeofenceError.input` (`malformed`) when the file's side sections are damaged
    ///   or the fences read again differ from those compiled, or as the files' loading throws.
    /// - Complexity: O(1) once held; O(fences + property bytes) the first time from a file.
    public func loadFences() throws(GeofenceError) -> [Fence] { try source.fences(of: index) }

    /// Compiles fences in order: slot k is `fences[k]`. `defaultDwell` (seconds) applies to
    /// fences without their own `dwell` option.
    /// - Throws: `GeofenceError.input` (`invalidRecord`) for a duplicate identifier or a shape
    ///   the index cannot use, located at that fence's source.
    /// - Complexity: O(n log n) for n fences (index build and identifier order).
    public init(_ fences: [Fence], defaultDwell: Double? = nil) throws(GeofenceError) {
        let index: FenceIndex
        do {
            index = try FenceIndex(fences)
        } catch {
            throw CompiledFences.inputError(error, fences)
        }
        self.init(index: index, optionTable: FenceOptionTable(fences.lazy.map(\.options)), source: FenceSource(fences), defaultDwell: defaultDwell)
    }

    /// Compiles fences as ``init(_:defaultDwell:)`` does, without holding them: `reload`
    /// gives them again, with their properties, the first time ``loadFences()`` is called
    /// (the fences of text files, read again from the files). `reload` must give the same
    /// identifiers in the same order; ``loadFences()`` throws when it does not.
    /// - Throws: as ``init(_:defaultDwell:)``.
    /// - Complexity: O(n log n) for n fences.
    ///
    /// The fences are released as soon as the table holds them, before the index's tree is
    /// built (pass them with `consume` and hold no other copy, so that their memory and the
    /// build's are not needed at once).
    public init(_ fences: consuming [Fence], defaultDwell: Double? = nil,
                reload: @escaping @Sendable () throws(GeofenceError) -> [Fence]) throws(GeofenceError) {
        var fences = fences
        let optionTable = FenceOptionTable(fences.lazy.map(\.options))
        let index: FenceIndex
        do {
            index = try FenceIndex(taking: &fences)
        } catch {
            // A repeated identifier is found once the fences are released: read them again to
            // say where (nothing is lost when they cannot be read: the error stays, unlocated).
            if case .duplicateIdentifier = error, fences.isEmpty, let again = try? reload() { throw CompiledFences.inputError(error, again) }
            throw CompiledFences.inputError(error, fences)
        }
        self.init(index: index, optionTable: optionTable, source: FenceSource(reload: reload), defaultDwell: defaultDwell)
    }

    /// Fences already compiled into an index and option table (e.g. streamed by
    /// `FenceLoader.compactCircles`), not held: `reload` gives them again, with their
    /// properties, the first time ``loadFences()`` is called; it must give the same
    /// identifiers in the same order (``loadFences()`` throws when it does not).
    /// - Complexity: O(1).
    public init(index: FenceIndex, optionTable: FenceOptionTable, defaultDwell: Double? = nil,
                reload: @escaping @Sendable () throws(GeofenceError) -> [Fence]) {
        self.init(index: index, optionTable: optionTable, source: FenceSource(reload: reload), defaultDwell: defaultDwell)
    }

    /// The fences of a compiled fence file, as it was opened (nothing parsed; properties
    /// and sources stay in the file until `loadFences()`).
    /// - Complexity: O(1).
    public init(file: CompiledFenceFile, defaultDwell: Double? = nil) {
        self.init(index: file.index, optionTable: file.options, source: FenceSource(file), defaultDwell: defaultDwell)
    }

    init(index: FenceIndex, optionTable: FenceOptionTable, source: FenceSource, defaultDwell: Double?) {
        options = CompiledOptions(table: optionTable, index: index, defaultDwell: defaultDwell)
        self.index = index
        self.source = source
    }

    /// The same fences and index with another default dwell (seconds; nil for none).
    /// - Complexity: O(1); the index and options are shared, not copied.
    public func withDefaultDwell(_ dwell: Double?) -> CompiledFences {
        CompiledFences(index: index, optionTable: optionTable, source: source, defaultDwell: dwell)
    }

    /// The records of the fences as a state stores them (identifier and a hash of the shape
    /// and the options the evaluation uses), from the compiled table (no properties read).
    /// - Complexity: O(total size of the shapes).
    public func fenceRecords() -> [EvaluationState.FenceRecord] {
        (0..<Int32(index.slotCount)).map { s in
            let f = Fence(id: index.identifier(of: s), shape: index.shape(at: s)!, options: optionTable.options(of: Int(s)))
            return EvaluationState.FenceRecord(id: f.id, hash: EvaluationState.hash(f))
        }
    }
}

/// The full fences of a `CompiledFences`: held, or read once on first use from a compiled
/// fence file or by a reload function (text files read again).
final class FenceSource: Sendable {
    private let read: (@Sendable () throws(GeofenceError) -> [Fence])?
    private let cache: Mutex<[Fence]?>

    init(_ fences: [Fence]) { read = nil; cache = Mutex(fences) }
    init(_ file: CompiledFenceFile) { read = { () throws(GeofenceError) in try file.fences() }; cache = Mutex(nil) }
    init(reload: @escaping @Sendable () throws(GeofenceError) -> [Fence]) { read = reload; cache = Mutex(nil) }

    func fences(of index: FenceIndex) throws(GeofenceError) -> [Fence] {
        if let held = cache.withLock({ $0 }) { return held }
        let fences = try read!()
        guard fences.count == index.slotCount, fences.indices.allSatisfy({ index.identifier(of: Int32($0)) == fences[$0].id }) else {
            let file = fences.first?.source.file ?? ""
            throw .input(InputError(SourceLocation(file: file), .malformed, "the fences changed since they were loaded; run the command again"))
        }
        cache.withLock { $0 = fences }
        return fences
    }
}

extension CompiledFences {
    /// The input error for a fence the index refused, located at that fence's source.
    static func inputError(_ e: FenceIndexError, _ fences: [Fence]) -> GeofenceError {
        switch e {
        case .duplicateIdentifier(let id):
            let second = fences.lastIndex { $0.id == id }.map { fences[$0].source } ?? SourceLocation(file: "")
            return .input(InputError(second, .invalidRecord(reason: "duplicate_identifier"), "duplicate identifier", recordID: id))
        case .invalidFence(let id, let reason):
            let at = fences.first { $0.id == id }?.source ?? SourceLocation(file: "")
            return .input(InputError(at, .invalidRecord(reason: "invalid_fence"), reason, recordID: id))
        case .tooManyFences:
            return .input(InputError(SourceLocation(file: ""), .malformed, "more fences than the index can address (2^29)"))
        }
    }
}
