import Foundation
import Glibc
import Synchronization

/// The library's entry point: fences loaded and compiled once, then asked questions.
///
/// ```swift
/// let engine = try Geofencer(contentsOf: ["data/ports.csv"])
/// for event in try engine.evaluate(log: "data/virginia_beach_ais.csv") { print(event) }
/// let answer = engine.nearest(lat: 36.85, lon: -76.29, slots: 20)
/// ```
///
/// A `Geofencer` is immutable and `Sendable`: share one between threads. Evaluating a
/// log (`evaluate`) streams events batch by batch; hosts that receive fixes one by one
/// (a service, a Spark partition) use an `EvaluationSession` instead. Semantics:
/// docs/evaluation.md (events), docs/rotation.md (planning), docs/fences.md (fences).
public final class Geofencer: Sendable {
    /// The compiled fences (index, options per slot, the fences in slot order).
    public let compiled: CompiledFences
    /// Fence problems skipped when loading with `skipInvalid`, counted by kind (empty otherwise).
    public let skippedProblems: [FenceProblem.Kind: Int]
    /// The properties named by `keepingProperties` when loading, per slot (nil when none
    /// were asked for); the only properties held in memory.
    public let eventProperties: FenceProperties?
    /// The circles a phone registers for the fences (polygons as their enclosing circle),
    /// computed with GEOS the first time a planner needs them.
    private let osCircleCache = Mutex<[OSCircle]?>(nil)

    /// The fences in slot order, with their properties (read again from the files the first
    /// time; see `CompiledFences.loadFences()`).
    public var fences: [Fence] { compiled.fences }

    /// Compiles fences made in code (or loaded by `FenceSet`).
    /// - Throws: `GeofenceError.input` (`invalidRecord`) for a duplicate identifier or an unusable shape.
    /// - Complexity: O(n log n) for n fences.
    public init(fences: [Fence]) throws(GeofenceError) {
        compiled = try CompiledFences(fences)
        skippedProblems = [:]
        eventProperties = nil
    }

    /// Loads fence files (GeoJSON or CSV, docs/fences.md), checks them and compiles them; or
    /// opens a compiled fence file (docs/compiled-fences.md, recognised by its magic bytes).
    /// - Parameters:
    ///   - paths: fence files, read in order; identifiers must be unique across them.
    ///   - crs: the CRS of projected inputs (e.g. `EPSG:2154`), reprojected to WGS84 by PROJ.
    ///   - layer: the layer to read from sources read through GDAL (docs/fences.md#other-vector-formats-gdal);
    ///     nil: their only layer with geometry.
    ///   - fields: where the fence attributes are, radius unit, default radius, CSV delimiter
    ///     (docs/fences.md#field-mapping).
    ///   - skipInvalid: drop fences with problems (counted in `skippedProblems`) instead of
    ///     throwing the first.
    ///   - keepingProperties: fence properties to keep for event records (`eventProperties`);
    ///     every other property is dropped once read.
    ///   - progress: called with each phase as it starts (`reading fences ...`, `indexing N
    ///     fences`), for a progress line.
    ///   - threads: threads that may read a compiled fence file at once (its sections read and
    ///     checked side by side; docs/compiled-fences.md).
    /// - Throws: `GeofenceError.input` for a file that cannot be read or parsed, or (strict)
    ///   the first fence problem as `invalidRecord`; `.invalidArgument` (`crs`) for an unknown CRS
    ///   or one conflicting with a source's own, or a `crs` given with a compiled fence file
    ///   among `paths`; (`layer`) for a missing or ambiguous layer.
    /// - Complexity: O(n log n) for n fences, plus GEOS validity checks of polygons.
    public init(contentsOf paths: [String], crs: String? = nil, layer: String? = nil, fields: FenceFieldOptions = FenceFieldOptions(),
                skipInvalid: Bool = false, keepingProperties names: [String] = [], progress: ((String) -> Void)? = nil,
                threads: Int = 1) throws(GeofenceError) {
        if crs != nil { try FenceSet.refuseCRSWithCompiledFiles(paths) }
        if paths.count == 1, CompiledFenceFile.isCompiled(path: paths[0]) {
            // One compiled fence file: opened as it is (checked, no parse, no rebuild).
            let file = try CompiledFenceFile.open(path: paths[0], threads: threads)
            compiled = CompiledFences(file: file)
            skippedProblems = [:]
            // The chosen properties are read from the file's side section, the rest not kept.
            eventProperties = names.isEmpty ? nil : FenceProperties(names: names, fences: try file.fences())
            return
        }
        // Queries and evaluation need no properties: the fences are compiled without them
        // (but for those chosen for events), and read again, whole, only by a command that
        // writes them back (`loadFences()`). A pipe or FIFO can be read once only: its fences
        // keep their properties.
        let rereadable = paths.allSatisfy(Self.canBeReadAgain)
        progress?(Geofencer.readingPhase(paths))
        if rereadable && names.isEmpty && crs == nil {
            // Clean circle files: streamed into the compact table, no fence array at all.
            var loader = FenceLoader()
            loader.keepProperties = false
            loader.fields = fields
            loader.vector = VectorSourceOptions(layer: layer, crs: nil)
            let counted = { (n: Int) -> Void in progress?("indexing \(n) fence\(n == 1 ? "" : "s")") }
            if let (index, options) = try loader.compactCircles(paths: paths, indexing: counted) {
                compiled = CompiledFences(index: index, optionTable: options, reload: { () throws(GeofenceError) -> [Fence] in
                    try FenceSet.load(paths: paths, crs: nil, layer: layer, fields: fields).usable(skipInvalid: skipInvalid).fences
                })
                skippedProblems = [:]
                eventProperties = nil
                return
            }
        }
        // The set is not kept: the fences' only copy goes to the compiler, which frees it
        // before building the tree.
        var fences: [Fence]
        do {
            let usable = try FenceSet.load(paths: paths, crs: crs, layer: layer, fields: fields, keepProperties: !rereadable || !names.isEmpty)
                .usable(skipInvalid: skipInvalid)
            fences = usable.fences
            skippedProblems = usable.skipped
        }
        progress?("indexing \(fences.count) fence\(fences.count == 1 ? "" : "s")")
        eventProperties = names.isEmpty ? nil : FenceProperties(names: names, fences: fences)
        if rereadable {
            if !names.isEmpty { for k in fences.indices { fences[k].properties = [] } }
            compiled = try CompiledFences(consume fences, reload: { () throws(GeofenceError) -> [Fence] in
                try FenceSet.load(paths: paths, crs: crs, layer: layer, fields: fields).usable(skipInvalid: skipInvalid).fences
            })
        } else {
            compiled = try CompiledFences(fences)
        }
    }

    /// Whether a fence source can be read a second time: not stdin (`-`), a pipe, a FIFO,
    /// a socket or a character device.
    static func canBeReadAgain(_ path: String) -> Bool {
        if path == "-" { return false }
        var st = stat()
        guard stat(path, &st) == 0 else { return true }   // a GDAL name, or an error the first read reported
        let kind = st.st_mode & S_IFMT
        return kind == S_IFREG || kind == S_IFDIR
    }

    /// `reading fences from ports.csv (1.2 MB)`, or `reading 3 fence files (40.5 MB)`.
    public static func readingPhase(_ paths: [String]) -> String {
        var bytes: Int64 = 0
        for p in paths { bytes += (try? FileManager.default.attributesOfItem(atPath: p)[.size] as? Int64) ?? 0 }
        let size = bytes > 0 ? String(format: " (%.1f MB)", Double(bytes) / 1e6) : ""
        return paths.count == 1 ? "reading fences from \((paths[0] as NSString).lastPathComponent)\(size)"
                                : "reading \(paths.count) fence files\(size)"
    }

    // MARK: Point queries

    /// The fences whose state at a point with this accuracy is inside or uncertain (like
    /// `CLLocationManager.requestState`), each with its boundary distance, by identifier.
    /// - Precondition: `lat` in [-90, 90], `lon` finite, `accuracy` finite and ≥ 0.
    /// - Complexity: O(log n + k) expected for k fences near the point.
    public func contains(lat: Double, lon: Double, accuracy: Double = 0) -> Containment {
        let index = compiled.index
        var hits = index.classify(lat: lat, lon: lon, accuracy: accuracy)
        hits.removeAll { $0.state != .inside && $0.state != .uncertain }
        hits.sort { compiled.options.idRank($0.slot) < compiled.options.idRank($1.slot) }
        func match(_ c: FenceClassification) -> FenceMatch {
            FenceMatch(id: index.identifier(of: c.slot), distance: index.boundaryDistance(of: c.slot, lat: lat, lon: lon),
                       isPolygon: index.isPolygon(c.slot))
        }
        return Containment(lat: lat, lon: lon, accuracy: accuracy,
                           inside: hits.filter { $0.state == .inside }.map(match),
                           uncertain: hits.filter { $0.state == .uncertain }.map(match))
    }

    /// The `slots − 1` fences nearest to a point by distance to their boundary (0 inside),
    /// and the refresh radius: the distance to the nearest fence not monitored
    /// (docs/rotation.md). Ties by identifier.
    /// - Precondition: `slots` ≥ 2; `lat` in [-90, 90], `lon` finite.
    /// - Complexity: O(slots · log n) expected.
    public func nearest(lat: Double, lon: Double, slots: Int = 20) -> NearestFences {
        precondition(slots >= 2, "a device needs at least one fence slot and the refresh region")
        let index = compiled.index
        let found = index.nearest(slots, lat: lat, lon: lon)
        let monitored = found.prefix(slots - 1).map {
            FenceMatch(id: index.identifier(of: $0.slot), distance: $0.distance, isPolygon: index.isPolygon($0.slot))
        }
        let next = found.count >= slots ? found[slots - 1] : nil
        return NearestFences(lat: lat, lon: lon, slots: slots, monitor: monitored,
                             refreshRadius: next?.distance, next: next.map { index.identifier(of: $0.slot) })
    }

    // MARK: Planning

    /// The circle a phone registers for each fence: circles as they are, polygons as their
    /// enclosing circle (GEOS), in slot order. Computed once.
    /// - Throws: `GeofenceError.input` when GEOS cannot enclose a polygon.
    /// - Complexity: O(total polygon vertices) the first time, O(1) after.
    public func osCircles() throws(GeofenceError) -> [OSCircle] {
        if let c = osCircleCache.withLock({ $0 }) { return c }
        let index = compiled.index
        let c = try Simulator.osCircles((0..<Int32(index.slotCount)).map { Fence(id: index.identifier(of: $0), shape: index.shape(at: $0)!) })
        osCircleCache.withLock { $0 = c }
        return c
    }

    /// A planner over these fences (docs/rotation.md): which fences a phone should monitor
    /// at a position, and its refresh region.
    /// - Throws: as `osCircles()`.
    public func planner(settings: Planner.Settings = Planner.Settings(), strategy: Planner.Strategy = .guaranteed) throws(GeofenceError) -> Planner {
        Planner(index: compiled.index, circles: try osCircles(), settings: settings, strategy: strategy)
    }

    // MARK: Evaluation

    /// Evaluates location logs read in order as one log (CSV, NDJSON or GPX, gzip or not;
    /// `-` for standard input; docs/logs.md), streaming the events as they are found.
    ///
    /// The stream reads `batchSize` fixes at a time and yields each batch's events: devices in
    /// order of first appearance, each device's events in time order, events of one fix by
    /// fence identifier (docs/evaluation.md#order). With one batch (a log of at most
    /// `batchSize` fixes) that is the order `geofence evaluate` writes.
    /// - Throws: `GeofenceError.input` when the first log cannot be opened; later errors
    ///   (bad rows in strict mode, read failures) come from the stream.
    public func evaluate(logs: [String], options: LogReaderOptions = LogReaderOptions(),
                         settings: EvaluationSettings = EvaluationSettings(), threads: Int = 1,
                         batchSize: Int = EvaluationRun.defaultBatchSize) throws(GeofenceError) -> EventStream {
        try EventStream(compiled: settings.dwell == nil ? compiled : compiled.withDefaultDwell(settings.dwell),
                        logs: logs, options: options, settings: settings, threads: threads, batchSize: batchSize)
    }

    /// Evaluates one location log; see `evaluate(logs:options:settings:threads:batchSize:)`.
    public func evaluate(log: String, options: LogReaderOptions = LogReaderOptions(),
                         settings: EvaluationSettings = EvaluationSettings(), threads: Int = 1) throws(GeofenceError) -> EventStream {
        try evaluate(logs: [log], options: options, settings: settings, threads: threads)
    }

    /// How a restored state's fences may differ from the engine's.
    public enum StateFences: Sendable {
        /// The same fences (fingerprint) are required.
        case same
        /// Another fence set is accepted: states of removed fences are dropped, new and
        /// changed fences start unknown (docs/state.md).
        case changed
    }

    /// A session continuing from a saved state (`EvaluationSession.snapshot()`, or a file
    /// written by `geofence evaluate --state-out`, decoded with `EvaluationState(decoding:path:)`).
    /// - Throws: `GeofenceError.invalidArgument` (parameter `state`) when the state's settings
    ///   differ from `settings`, or its fences differ and `fences` is `.same`.
    /// - Complexity: O(devices + fence states + fences).
    public func session(restoring state: EvaluationState, fences policy: StateFences = .same,
                        settings: EvaluationSettings = EvaluationSettings(), threads: Int = 1) throws(GeofenceError) -> (EvaluationSession, FenceChanges) {
        guard state.exitMargin == settings.exitMargin && state.defaultDwell == settings.dwell else {
            throw .argument("state", "the state was written with exit margin \(state.exitMargin) m and default dwell \(state.defaultDwell.map { "\($0) s" } ?? "none"); continue with the same settings")
        }
        let changes = FenceChanges(from: state.fences, to: compiled.fenceRecords())
        if policy == .same && !changes.isIdentity {
            throw .argument("state", "the state was written for another fence set (\(changes.removed.count) removed, \(changes.added.count) added, \(changes.changed.count) changed)")
        }
        let s = session(settings: settings, threads: threads)
        s.restore(state, changes: changes)
        return (s, changes)
    }

    /// A session for hosts that feed fixes themselves (see `EvaluationSession`).
    public func session(settings: EvaluationSettings = EvaluationSettings(), threads: Int = 1) -> EvaluationSession {
        EvaluationSession(compiled: settings.dwell == nil ? compiled : compiled.withDefaultDwell(settings.dwell),
                          settings: settings, threads: threads)
    }
}

/// A fence near a point and its distance in metres: to its boundary for `contains`
/// (how far inside, or how far the accuracy circle reaches over the edge), to its
/// boundary (0 inside) for `nearest`.
public struct FenceMatch: Hashable, Sendable {
    /// The fence identifier.
    public var id: String
    /// Metres (see the type's description).
    public var distance: Double
    /// Whether the fence is a polygon (else a circle).
    public var isPolygon: Bool

    /// A match with every field given.
    public init(id: String, distance: Double, isPolygon: Bool) { self.id = id; self.distance = distance; self.isPolygon = isPolygon }
}

/// The answer of `Geofencer.contains`: fences inside and uncertain at a point; every
/// other fence is outside.
public struct Containment: Hashable, Sendable {
    /// The point, degrees.
    public var lat: Double, lon: Double
    /// Its horizontal accuracy, metres.
    public var accuracy: Double
    /// Fences that contain the whole accuracy circle, by identifier.
    public var inside: [FenceMatch]
    /// Fences whose edge the accuracy circle straddles, by identifier.
    public var uncertain: [FenceMatch]

    /// As `geofence contains` prints it (distances to the millimetre).
    public var json: JSONValue {
        func entry(_ m: FenceMatch) -> JSONValue {
            .object([("id", .string(m.id)), ("boundary_distance", .number(millimetres(m.distance))),
                     ("shape", .string(m.isPolygon ? "polygon" : "circle"))])
        }
        return .object([("lat", .number(lat)), ("lon", .number(lon)), ("accuracy", .number(accuracy)),
                        ("inside", .array(inside.map(entry))), ("uncertain", .array(uncertain.map(entry)))])
    }
}

/// The answer of `Geofencer.nearest`: the fences to monitor and the refresh region.
public struct NearestFences: Hashable, Sendable {
    /// The device position, degrees.
    public var lat: Double, lon: Double
    /// Regions the device can monitor (fences + the refresh region).
    public var slots: Int
    /// The `slots − 1` nearest fences by boundary distance (0 inside), nearest first.
    public var monitor: [FenceMatch]
    /// Radius of the refresh region in metres: the distance to the nearest fence not
    /// monitored (nil when every fence is monitored).
    public var refreshRadius: Double?
    /// That nearest unmonitored fence.
    public var next: String?

    /// As `geofence nearest` prints it (distances to the millimetre).
    public var json: JSONValue {
        .object([
            ("lat", .number(lat)), ("lon", .number(lon)), ("slots", .number(Double(slots))),
            ("monitor", .array(monitor.map { m in
                .object([("id", .string(m.id)), ("distance", .number(millimetres(m.distance))),
                         ("shape", .string(m.isPolygon ? "polygon" : "circle"))])
            })),
            ("refresh", .object([("lat", .number(lat)), ("lon", .number(lon)),
                                 ("radius", refreshRadius.map { .number(millimetres($0)) } ?? .null),
                                 ("next", next.map { .string($0) } ?? .null)])),
        ])
    }
}

/// Metres rounded to the millimetre, for output.
func millimetres(_ d: Double) -> Double { (d * 1000).rounded() / 1000 }
