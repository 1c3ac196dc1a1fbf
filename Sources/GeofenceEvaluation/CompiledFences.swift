import GeofenceLogs
import GeofenceBase
import GeofenceIndex

/// Fences compiled for the hot path: the spatial index, options in flat arrays
/// indexed by slot, and the source fences for output (identifiers, notes).
public struct CompiledFences: Sendable {
    /// The packed R-tree; slot k holds `fences[k]`.
    public let index: FenceIndex
    /// The fences' options per slot, with the default dwell applied.
    public let options: CompiledOptions
    /// The fences in slot order.
    public let fences: [Fence]

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
        for (k, f) in fences.enumerated() where index.slot(of: f.id) != Int32(k) {
            throw .internal("fence \(f.id) compiled to slot \(String(describing: index.slot(of: f.id))), expected \(k)")
        }
        self.init(index: index, fences: fences, defaultDwell: defaultDwell)
    }

    init(index: FenceIndex, fences: [Fence], defaultDwell: Double?) {
        let order = fences.indices.sorted { fences[$0].id.utf8.lexicographicallyPrecedes(fences[$1].id.utf8) }
        var rank = [Int32](repeating: 0, count: fences.count)
        for (r, k) in order.enumerated() { rank[k] = Int32(r) }
        options = CompiledOptions(
            notifyOnEntry: fences.map { $0.options.notifyOnEntry },
            notifyOnExit: fences.map { $0.options.notifyOnExit },
            dwell: fences.map { $0.options.dwell ?? defaultDwell ?? -1 },
            repeats: fences.map { $0.options.repeats },
            idRank: rank)
        self.index = index
        self.fences = fences
    }

    /// The same fences and index with another default dwell (seconds; nil for none).
    /// - Complexity: O(n log n) for the options; the index is shared, not rebuilt.
    public func withDefaultDwell(_ dwell: Double?) -> CompiledFences {
        CompiledFences(index: index, fences: fences, defaultDwell: dwell)
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
