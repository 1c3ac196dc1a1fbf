import Foundation
import GeofenceTestSupport
import GeofenceKit

/// The real data sets of data/README.md: committed samples under data/ and the
/// large sets `scripts/fetch-data` writes to data/fetched/.
struct RealData {
    let root: String

    /// Finds the repository root (the directory holding data/airports.csv) from
    /// `given` or by walking up from the current directory.
    static func locate(_ given: String?) -> RealData? {
        let fm = FileManager.default
        if let given { return fm.fileExists(atPath: given + "/data/airports.csv") ? RealData(root: given) : nil }
        var dir = URL(fileURLWithPath: fm.currentDirectoryPath)
        for _ in 0..<6 {
            if fm.fileExists(atPath: dir.path + "/data/airports.csv") { return RealData(root: dir.path) }
            dir.deleteLastPathComponent()
        }
        return nil
    }

    func path(_ relative: String) -> String? {
        let p = root + "/" + relative
        return FileManager.default.fileExists(atPath: p) ? p : nil
    }

    var hasFetched: Bool { path("data/fetched/cities.csv") != nil }

    /// Engine fences from files (GEOS-validated; invalid ones dropped and counted).
    func fences(_ relatives: [String]) throws -> (fences: [Fence], dropped: Int) {
        let paths = relatives.compactMap(path)
        guard paths.count == relatives.count else { throw BenchError.missing(relatives.filter { path($0) == nil }) }
        let set = try FenceSet.load(paths: paths, crs: nil)
        let (ok, skipped) = try set.usable(skipInvalid: true)
        return (ok, skipped.values.reduce(0, +))
    }

    /// The circle fences of files, as the index takes them.
    func circles(_ relatives: [String]) throws -> [CircleRecord] {
        try fences(relatives).fences.compactMap { f in
            if case .circle(let lat, let lon, let r) = f.shape { return CircleRecord(id: f.id, lat: lat, lon: lon, radius: r) }
            return nil
        }
    }

    /// Every fix of a log.
    func fixes(_ relative: String) throws -> (fixes: [Fix], devices: Int) {
        guard let p = path(relative) else { throw BenchError.missing([relative]) }
        let reader = try LogReader(path: p)
        let all = try reader.readAll()
        return (all, reader.devices.count)
    }

    /// The trace used as real query points: the US coastal AIS trace when fetched, else the committed sample.
    var traceName: String { hasFetched ? "data/fetched/ais_us_coastal.csv" : "data/virginia_beach_ais.csv" }
}

enum BenchError: Error, CustomStringConvertible {
    case missing([String])
    case failed(String)

    var description: String {
        switch self {
        case .missing(let files): return "missing data file(s): \(files.joined(separator: ", ")) (run scripts/fetch-data)"
        case .failed(let s): return s
        }
    }
}
