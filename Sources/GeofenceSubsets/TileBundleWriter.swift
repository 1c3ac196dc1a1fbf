import CSystem
import GeofenceBase
import GeofenceFences
import GeofenceEvaluation
import Dispatch
import Foundation
import GeofenceIndex

/// What `TileBundleWriter.build` did.
public struct TileBuildReport: Sendable {
    /// The zoom of the tiles built.
    public var zoom: Int
    /// Fences per device the bundles were built for (``TileBundler/k``).
    public var k: Int
    /// Tiles in the requested range.
    public var considered: Int
    /// Tiles written (some fence within reach).
    public var written: Int
    /// Tiles omitted (no fence within reach).
    public var omitted: Int { considered - written }
    /// Bytes of all tile files (not the manifest).
    public var bytes: Int
    /// Fences per written tile.
    public var bundleSizes: BundleSizes
    /// The comparison with the previous manifest, when there was one.
    public var changes: TileChanges?
    /// Wall-clock seconds the build took, manifest included.
    public var seconds: Double
}

/// Distribution of bundle sizes over the written tiles.
/// Quantiles are the sorted size at index ⌊n × q⌋ (n written tiles); all 0 when no tile
/// was written.
public struct BundleSizes: Sendable, Hashable {
    /// Mean fences per written tile.
    public var mean: Double
    /// Fewest fences in a written tile.
    public var min: Int
    /// Median fences per written tile.
    public var p50: Int
    /// 90th percentile of fences per written tile.
    public var p90: Int
    /// 99th percentile of fences per written tile.
    public var p99: Int
    /// Most fences in a written tile.
    public var max: Int

    init(_ counts: [Int]) {
        let s = counts.sorted()
        func q(_ f: Double) -> Int { s.isEmpty ? 0 : s[Swift.min(s.count - 1, Int((Double(s.count) * f).rounded(.down)))] }
        mean = s.isEmpty ? 0 : Double(s.reduce(0, +)) / Double(s.count)
        min = s.first ?? 0; max = s.last ?? 0
        p50 = q(0.5); p90 = q(0.9); p99 = q(0.99)
    }
}

/// Tiles that differ from a previous build: by checksum, or present in only one.
public struct TileChanges: Sendable, Hashable {
    /// Tiles written now but not listed in the previous manifest, by column then row.
    public var added: [Tile] = []
    /// Tiles listed in the previous manifest but not written now, sorted (zoom, column, row).
    public var removed: [Tile] = []
    /// Tiles in both whose checksum differs, by column then row.
    public var changed: [Tile] = []
    /// The number of tiles in both with the same checksum.
    public var unchanged = 0

    /// The `--changes` file object: `{"added":["z/x/y",...],"removed":[...],"changed":[...],"unchanged":n}`.
    /// - Complexity: O(added + removed + changed).
    public var json: JSONValue {
        func list(_ t: [Tile]) -> JSONValue { .array(t.map { .string($0.description) }) }
        return .object([("added", list(added)), ("removed", list(removed)), ("changed", list(changed)),
                        ("unchanged", .number(Double(unchanged)))])
    }
}

/// Writes tile bundles: `DIR/z/x/y.geojson` for every tile of a range with
/// some fence within reach, then `DIR/manifest.json` (docs/subsets.md#files).
///
/// Tiles are computed in parallel, one column at a time per worker; the
/// bytes do not depend on the thread count (fences sorted by identifier
/// inside a tile, tiles sorted by column then row in the manifest, no times).
/// Each tile is written under a temporary name and renamed; the manifest is
/// written last, so a manifest only ever lists complete files. Rebuilding
/// into the same directory leaves unchanged tiles untouched (same checksum as
/// the manifest there, same size on disk), rewrites changed ones, adds new
/// ones and deletes those no longer written.
public enum TileBundleWriter {
    /// The manifest's file name in the output directory.
    public static let manifestName = "manifest.json"
    /// The manifest's `format` value, the version of the bundle layout.
    public static let format = "geofence-tiles/1"

    /// Rows checked together for reach before looking at single tiles.
    static let rowGroup = 16

    /// Builds the bundles of every tile of `range` into `outDir` (created when missing), then
    /// writes the manifest (docs/subsets.md#tile-bundles).
    /// - Parameters:
    ///   - sources: the fence files the set was read from; their names, sizes and SHA-256 go
    ///     into the manifest (the files are read again for that).
    ///   - area: the selected area, written to the manifest as `[W,S,E,N]`; nil for the world.
    ///   - previousDir: a directory whose manifest the build is compared with; nil compares
    ///     with `outDir`'s own manifest when there is one. Only a comparison with `outDir`
    ///     itself rebuilds in place (unchanged tiles not rewritten, omitted ones deleted).
    ///   - threads: workers, one column at a time each (values below 1 count as 1); the bytes
    ///     do not depend on it.
    ///   - progress: called with (columns done, columns in total) after each column, from
    ///     the worker threads.
    ///   - changesPath: where to write the changes object (``TileChanges/json``, `null` without a
    ///     previous manifest); it is staged before the bundle is swapped in and committed right
    ///     after, so a failure to write it leaves the previous bundle in place. Nil writes none.
    /// - Returns: the counts, sizes and, when there was a previous manifest, the changes.
    /// - Throws: ``GeofenceError/input(_:)`` when a source file or the previous manifest cannot
    ///   be read (``InputError/Kind/notFound`` ... ``InputError/Kind/readFailed(errno:)``), or
    ///   the manifest is not one (``InputError/Kind/malformed``); ``GeofenceError/output(_:)``
    ///   when a directory, a tile file or the manifest cannot be created, written or renamed.
    ///   After a failure the manifest is not written; tiles already written stay.
    /// - Precondition: every tile of `range` is valid at its zoom (see ``Tile/init(z:x:y:)``).
    /// - Complexity: ``TileBundler/bundle(for:scratch:)`` per tile that some fence may reach,
    ///   plus O(fences) to serialise the features and O(bytes) to hash and write the tiles.
    public static func build(bundler: TileBundler, range: TileRange, outDir: String, sources: [String],
                             area: GeoBox? = nil, previousDir: String? = nil, threads: Int = 1,
                             progress: (@Sendable (Int, Int) -> Void)? = nil,
                             changesPath: String? = nil) throws(GeofenceError) -> TileBuildReport {
        let start = DispatchTime.now()
        let sourceInfo = try sources.map { path throws(GeofenceError) -> JSONValue in
            let name = JSONValue.string(URL(fileURLWithPath: path).lastPathComponent)
            // A pipe or FIFO was read once, by the loader: it is recorded by name only.
            var st = stat()
            guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
                return .object([("file", name), ("bytes", .null), ("sha256", .null)])
            }
            let bytes = try readFile(path, what: "fences file")
            return .object([("file", .string(URL(fileURLWithPath: path).lastPathComponent)),
                            ("bytes", .number(Double(bytes.count))), ("sha256", .string(SHA256.hex(bytes)))])
        }
        let previousManifestDir = previousDir ?? (FileManager.default.fileExists(atPath: outDir + "/" + manifestName) ? outDir : nil)
        let previous = try previousManifestDir.map { dir throws(GeofenceError) in try readManifestTiles(dir + "/" + manifestName) }
        // The new bundle is built whole in a staging directory beside `outDir`, then swapped
        // in: `outDir` always holds one complete bundle, the old or the new (docs/subsets.md#files).
        let existing = try checkBundleDirectory(outDir)
        let staging = stagingPath(outDir)
        removeStaleStaging(outDir)
        try makeDirectory(staging)
        TemporaryFiles.shared.add(staging)
        var committed = false
        defer {
            if !committed { removeTree(staging) }
            TemporaryFiles.shared.remove(staging)
        }
        try makeDirectory(staging + "/\(range.zoom)")
        let features = featureBytes(bundler.compiled.fences, threads: threads)
        let header0 = Array("{\"type\":\"FeatureCollection\",\"tile\":\"".utf8)
        let header1 = Array("\",\"k\":\(bundler.k),\"features\":[".utf8)
        let footer = Array("\n]}\n".utf8)

        let columns = range.columnList
        let state = BuildState(columns: columns.count)
        let workers = max(1, min(threads, columns.count))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            var scratch = TileBundler.Scratch()
            var bytes: [UInt8] = []
            while let c = state.nextColumn() {
                let x = columns[c]
                var records: [TileRecord] = []
                var madeDir = false
                var row = range.rows.lowerBound
                while row <= range.rows.upperBound {
                    let last = min(range.rows.upperBound, row + rowGroup - 1)
                    defer { row = last + 1 }
                    if last > row {
                        let group = BundleCell(west: Tile.longitude(column: x, zoom: range.zoom), south: Tile.latitude(row: last + 1, zoom: range.zoom),
                                               east: Tile.longitude(column: x + 1, zoom: range.zoom), north: Tile.latitude(row: row, zoom: range.zoom),
                                               radius: 0)
                        if !bundler.isReachable(group) { continue }
                    }
                    for y in row...last {
                        let tile = Tile(z: range.zoom, x: x, y: y)
                        guard let bundle = bundler.bundle(for: tile, scratch: &scratch) else { continue }
                        bytes.removeAll(keepingCapacity: true)
                        bytes += header0; bytes += Array(tile.description.utf8); bytes += header1
                        for (i, slot) in bundle.slots.enumerated() {
                            bytes.append(i == 0 ? 0x0A : 0x2C)
                            if i > 0 { bytes.append(0x0A) }
                            bytes += features[Int(slot)]
                        }
                        bytes += footer
                        let dir = staging + "/\(range.zoom)/\(x)"
                        let sha = SHA256.hex(bytes)
                        let name = "/\(range.zoom)/\(x)/\(y).geojson"
                        do throws(GeofenceError) {
                            if !madeDir { try makeDirectory(dir); madeDir = true }
                            // A file of the current bundle with exactly these bytes is linked, not
                            // rewritten (checked byte for byte: the manifest is not trusted).
                            if !(existing && sameContents(outDir + name, bytes) && link(outDir + name, staging + name) == 0) {
                                try writeFile(staging + name, bytes)
                            }
                        } catch {
                            state.fail(error)
                            return
                        }
                        records.append(TileRecord(tile: tile, fences: bundle.slots.count, bytes: bytes.count, sha256: sha))
                    }
                }
                state.finish(column: c, records: records, progress: progress)
            }
        }
        if let error = state.error { throw error }
        let records = state.records.flatMap { $0 }

        var changes: TileChanges? = nil
        if let previous {
            var ch = TileChanges()
            var seen = Set<Tile>()
            for r in records {
                seen.insert(r.tile)
                switch previous[r.tile] {
                case nil: ch.added.append(r.tile)
                case let old? where old != r.sha256: ch.changed.append(r.tile)
                default: ch.unchanged += 1
                }
            }
            ch.removed = previous.keys.filter { !seen.contains($0) }.sorted()
            changes = ch
        }

        let sizes = BundleSizes(records.map { $0.fences })
        let total = records.reduce(0) { $0 + $1.bytes }
        let manifest = manifestText(bundler: bundler, range: range, area: area, sources: sourceInfo,
                                    records: records, sizes: sizes, bytes: total)
        try AtomicFile.write(manifest, to: staging + "/" + manifestName)
        let stagedChanges = try changesPath.map { path throws(GeofenceError) in
            try AtomicFile.stage(Array((JSONWriter.string(changes?.json ?? .null) + "\n").utf8), to: path)
        }
        do {
            try swapIn(staging, outDir, replacing: existing)
        } catch {
            stagedChanges?.abandon()
            throw error
        }
        committed = true
        try stagedChanges?.commit()
        return TileBuildReport(zoom: range.zoom, k: bundler.k, considered: range.count, written: records.count, bytes: total,
                               bundleSizes: sizes, changes: changes,
                               seconds: Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9)
    }

    struct TileRecord: Sendable {
        var tile: Tile
        var fences: Int
        var bytes: Int
        var sha256: String
    }

    /// Shared between workers: the next column, results per column, the first error.
    final class BuildState: @unchecked Sendable {
        private let lock = NSLock()
        private var next = 0
        private var done = 0
        private(set) var records: [[TileRecord]]
        private(set) var error: GeofenceError?

        init(columns: Int) { records = Array(repeating: [], count: columns) }

        func nextColumn() -> Int? {
            lock.lock(); defer { lock.unlock() }
            guard error == nil, next < records.count else { return nil }
            next += 1
            return next - 1
        }

        func finish(column: Int, records r: [TileRecord], progress: (@Sendable (Int, Int) -> Void)?) {
            lock.lock()
            records[column] = r
            done += 1
            let d = done, n = records.count
            lock.unlock()
            progress?(d, n)
        }

        func fail(_ e: GeofenceError) {
            lock.lock(); defer { lock.unlock() }
            if error == nil { error = e }
        }
    }

    /// Each fence's GeoJSON Feature (`FenceWriter.feature`), serialised once.
    static func featureBytes(_ fences: [Fence], threads: Int) -> [[UInt8]] {
        let out = FeatureTable(count: fences.count)
        let chunk = 4096
        let chunks = (fences.count + chunk - 1) / chunk
        DispatchQueue.concurrentPerform(iterations: max(1, chunks)) { c in
            let lo = c * chunk, hi = min(fences.count, lo + chunk)
            guard lo < hi else { return }
            var part: [[UInt8]] = []
            part.reserveCapacity(hi - lo)
            for f in fences[lo..<hi] { part.append(Array(JSONWriter.string(FenceWriter.feature(f)).utf8)) }
            out.set(part, at: lo)
        }
        return out.items
    }

    final class FeatureTable: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var items: [[UInt8]]
        init(count: Int) { items = Array(repeating: [], count: count) }
        func set(_ part: [[UInt8]], at lo: Int) {
            lock.lock(); defer { lock.unlock() }
            for (i, b) in part.enumerated() { items[lo + i] = b }
        }
    }

    // MARK: Manifest

    /// The manifest's `bound` member: the bound of ``TileBundler`` in one paragraph of ASCII.
    public static let boundDescription =
        "bundle(tile) = union over s x s cells C of {F : lb(C,F) <= U_C}; U_C = k-th smallest over the pool (the 2k fences nearest the tile centre) of ub(C,F) >= max over p in C of d(p,F) (circle: g(c,x)+R_C-r by the triangle inequality; polygon: sigma * max plane distance to an anchor on its boundary); lb(C,F) <= min over p in C of d(p,F) (sphere-bound box distances). If F is among the k nearest to p in C then lb <= d(p,F) <= D_k(p) <= U_C."

    static func manifestText(bundler: TileBundler, range: TileRange, area: GeoBox?, sources: [JSONValue],
                             records: [TileRecord], sizes: BundleSizes, bytes: Int) -> String {
        func n(_ d: Double) -> JSONValue { .number(d) }
        func r2(_ d: Double) -> JSONValue { .number((d * 100).rounded() / 100) }
        let head: [(String, JSONValue)] = [
            ("format", .string(format)),
            ("zoom", n(Double(range.zoom))),
            ("k", n(Double(bundler.k))),
            ("reach_m", n(bundler.reach)),
            ("split", n(Double(bundler.split))),
            ("pool", n(Double(bundler.poolFactor * bundler.k))),
            ("bound", .string(boundDescription)),
            ("tiling", .string("Web Mercator XYZ (z/x/y, y down from 85.0511287798 N), files z/x/y.geojson")),
            ("area", area.map { .array([n($0.west), n($0.south), n($0.east), n($0.north)]) } ?? .null),
            ("sources", .array(sources)),
            ("fences", n(Double(bundler.compiled.index.count))),
            ("tiles_considered", n(Double(range.count))),
            ("tiles_written", n(Double(records.count))),
            ("tiles_omitted", n(Double(range.count - records.count))),
            ("omitted_means", .string("no fence within reach_m of any point of the tile")),
            ("bytes", n(Double(bytes))),
            ("bundle_fences", .object([("mean", r2(sizes.mean)), ("mean_over_k", r2(sizes.mean / Double(bundler.k))),
                                       ("min", n(Double(sizes.min))), ("p50", n(Double(sizes.p50))), ("p90", n(Double(sizes.p90))),
                                       ("p99", n(Double(sizes.p99))), ("max", n(Double(sizes.max)))])),
        ]
        var out = "{"
        for (k, (key, v)) in head.enumerated() {
            out += k == 0 ? "\n" : ",\n"
            JSONWriter.writeString(key, to: &out)
            out += ":"
            JSONWriter.write(v, to: &out)
        }
        out += ",\n\"tiles\":["
        for (i, r) in records.enumerated() {
            out += i == 0 ? "\n" : ",\n"
            out += "{\"x\":\(r.tile.x),\"y\":\(r.tile.y),\"fences\":\(r.fences),\"bytes\":\(r.bytes),\"sha256\":\"\(r.sha256)\"}"
        }
        out += "\n]}\n"
        return out
    }

    /// The tiles and checksums of a manifest (lower-case hex SHA-256 by tile).
    /// - Throws: ``GeofenceError/input(_:)``: kind ``InputError/Kind/notFound``,
    ///   ``InputError/Kind/notAFile``, ``InputError/Kind/cannotOpen(errno:)`` or
    ///   ``InputError/Kind/readFailed(errno:)`` when the file cannot be read;
    ///   ``InputError/Kind/malformed`` for malformed JSON, no `zoom` in [0, 24] or no `tiles`
    ///   array, or a tile without `x`, `y` in range and a `sha256`.
    /// - Complexity: O(file size).
    public static func readManifestTiles(_ path: String) throws(GeofenceError) -> [Tile: String] {
        let bytes = try readFile(path, what: "tile manifest")
        let root: JSONValue
        do { root = try JSONParser.parse(bytes) } catch { throw .malformed(SourceLocation(file: path), "malformed JSON at \(error)") }
        guard let z = root["zoom"]?.doubleValue.map({ Int($0) }), z >= 0, z <= Tile.maxZoom, let tiles = root["tiles"]?.arrayValue else {
            throw .malformed(SourceLocation(file: path), "not a geofence tile manifest (needs \"zoom\" and \"tiles\")")
        }
        var out: [Tile: String] = [:]
        for (i, t) in tiles.enumerated() {
            guard let x = t["x"]?.doubleValue.map({ Int($0) }), let y = t["y"]?.doubleValue.map({ Int($0) }),
                  x >= 0, y >= 0, x < 1 << z, y < 1 << z, let sha = t["sha256"]?.stringValue else {
                throw .malformed(SourceLocation(file: path), "tile \(i) needs integer \"x\", \"y\" in range and a \"sha256\"")
            }
            out[Tile(z: z, x: x, y: y)] = sha
        }
        return out
    }

    // MARK: Files

    /// The size of a regular file, nil when there is none.
    static func fileSize(_ path: String) -> Int? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(st.st_size)
    }

    static func sameDirectory(_ a: String, _ b: String) -> Bool {
        URL(fileURLWithPath: a).standardizedFileURL.path == URL(fileURLWithPath: b).standardizedFileURL.path
    }

    static func makeDirectory(_ path: String) throws(GeofenceError) {
        if mkdir(path, 0o755) == 0 || errno == EEXIST {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue { return }
        }
        throw .output(OutputError(path: path, .createDirectory, errno: errno))
    }

    /// Writes under a temporary name in the same directory, then renames.
    static func writeFile(_ path: String, _ bytes: [UInt8]) throws(GeofenceError) {
        try AtomicFile.write(bytes, to: path)
    }

    // MARK: Staging and swapping

    /// Whether `dir` holds a bundle to replace (false: absent or empty).
    /// - Throws: `GeofenceError.invalidArgument` (parameter `out`) when it exists but is not a
    ///   directory, or is a non-empty directory without a manifest (never replaced).
    static func checkBundleDirectory(_ dir: String) throws(GeofenceError) -> Bool {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir) else { return false }
        guard isDir.boolValue else { throw .argument("out", "\(dir) exists and is not a directory") }
        if FileManager.default.fileExists(atPath: dir + "/" + manifestName) { return true }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        guard entries.isEmpty else {
            throw .argument("out", "\(dir) is not empty and holds no \(manifestName): not a tile bundle; give a new or empty directory")
        }
        return true
    }

    /// `.NAME.staging-PID` beside `dir`.
    static func stagingPath(_ dir: String) -> String {
        let url = URL(fileURLWithPath: dir).standardizedFileURL
        return url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".staging-\(getpid())"
    }

    /// Removes staging directories of `dir` left by builds whose process is gone (a SIGKILL).
    static func removeStaleStaging(_ dir: String) {
        let url = URL(fileURLWithPath: dir).standardizedFileURL
        let parent = url.deletingLastPathComponent().path
        let prefix = "." + url.lastPathComponent + ".staging-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            // kill(pid, 0) fails with ESRCH only when no such process exists.
            if kill(pid, 0) != 0 && errno == ESRCH { removeTree(parent + "/" + name) }
        }
    }

    /// Puts the finished `staging` bundle at `dir`: one atomic exchange when `dir` exists
    /// (then the old bundle, now at `staging`, is deleted), a rename when it does not.
    static func swapIn(_ staging: String, _ dir: String, replacing: Bool) throws(GeofenceError) {
        if replacing {
            // returns 0, or -1 with errno
            guard geofence_exchange_paths(staging, dir) == 0 else {
                throw .output(OutputError(path: dir, .rename, errno: errno, message: "cannot swap the new bundle in: \(String(cString: strerror(errno)))"))
            }
            removeTree(staging)
        } else {
            guard rename(staging, dir) == 0 else { throw .output(OutputError(path: dir, .rename, errno: errno)) }
        }
    }

    /// Whether the file at `path` holds exactly `bytes`.
    static func sameContents(_ path: String, _ bytes: [UInt8]) -> Bool {
        guard fileSize(path) == bytes.count, let data = FileManager.default.contents(atPath: path) else { return false }
        return data.elementsEqual(bytes)
    }

    /// Deletes a directory tree (errors ignored: used on staging directories only).
    static func removeTree(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    // MARK: Verification

    /// Checks a bundle against its manifest: every listed tile present with its SHA-256,
    /// no tile file that the manifest does not list.
    /// - Returns: the problems found, one line each (empty when the bundle is whole).
    /// - Throws: `GeofenceError.input` when the manifest is missing or is not one.
    /// - Complexity: O(bytes of the bundle).
    public static func verify(_ dir: String) throws(GeofenceError) -> [String] {
        let tiles = try readManifestTiles(dir + "/" + manifestName)
        var problems: [String] = []
        for (tile, sha) in tiles.sorted(by: { $0.key < $1.key }) {
            let path = dir + "/\(tile.z)/\(tile.x)/\(tile.y).geojson"
            guard let data = FileManager.default.contents(atPath: path) else { problems.append("\(tile): missing"); continue }
            if SHA256.hex([UInt8](data)) != sha { problems.append("\(tile): content differs from the manifest's sha256") }
        }
        let listed = Set(tiles.keys.map { "\($0.z)/\($0.x)/\($0.y).geojson" })
        if let walker = FileManager.default.enumerator(atPath: dir) {
            for case let rel as String in walker where rel.hasSuffix(".geojson") && !listed.contains(rel) {
                problems.append("\(rel): not listed in the manifest")
            }
        }
        return problems
    }
}
