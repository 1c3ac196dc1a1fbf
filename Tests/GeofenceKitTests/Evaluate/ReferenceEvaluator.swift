import CGEOS
import Foundation
import Geodesy
import GeofenceKit
@testable import GeofenceBase
@testable import GeofenceIndex
@testable import GeofenceLogs
@testable import GeofenceFences
@testable import GeofenceEvaluation
@testable import GeofencePlanning
@testable import GeofenceSimulation
@testable import GeofenceSubsets

/// An independent evaluation of docs/evaluation.md for tests: every fix against every fence,
/// circles by the exact WGS84 geodesic, polygons by GEOS (covers, and the boundary
/// distance measured from GEOS's nearest boundary point in the local plane of the fix).
/// Dense state per (device, fence), no index, no shared code with the engine's evaluator.
final class ReferenceEvaluator {
    struct Event: Equatable, CustomStringConvertible {
        var device: Int32, fence: String, type: String, time: Double, initial: Bool
        var description: String { "\(device) \(fence) \(type) \(EventWriter.iso8601(time))\(initial ? " initial" : "")" }
    }

    enum State { case unknown, inside, outside }

    let fences: [Fence]
    let margin: Double
    let defaultDwell: Double?
    let h: GEOSContextHandle_t
    var geoms: [OpaquePointer?] = []
    var prepared: [OpaquePointer?] = []
    var envelopes: [(minX: Double, minY: Double, maxX: Double, maxY: Double)] = []
    var polygonRings: [[[[Coordinate]]]?] = []

    init(fences: [Fence], exitMargin: Double, dwell: Double?) {
        self.fences = fences
        margin = exitMargin
        defaultDwell = dwell
        h = GEOS_init_r()
        for f in fences {
            switch f.shape {
            case .circle:
                geoms.append(nil); prepared.append(nil); polygonRings.append(nil)
                envelopes.append((0, 0, 0, 0))
            case .polygon(let polys):
                let g = Self.makeGeometry(h, polys, transform: { ($0.lon, $0.lat) })
                geoms.append(g)
                prepared.append(GEOSPrepare_r(h, g))
                polygonRings.append(polys)
                let all = polys.flatMap { $0.flatMap { $0 } }
                envelopes.append((all.map(\.lon).min()!, all.map(\.lat).min()!, all.map(\.lon).max()!, all.map(\.lat).max()!))
            }
        }
    }

    deinit {
        for p in prepared where p != nil { GEOSPreparedGeom_destroy_r(h, p) }
        for g in geoms where g != nil { GEOSGeom_destroy_r(h, g) }
        GEOS_finish_r(h)
    }

    static func makeGeometry(_ h: GEOSContextHandle_t, _ polys: [[[Coordinate]]], transform: (Coordinate) -> (Double, Double)) -> OpaquePointer {
        var parts: [OpaquePointer?] = []
        for rings in polys {
            var made: [OpaquePointer?] = []
            for ring in rings {
                let seq = GEOSCoordSeq_create_r(h, UInt32(ring.count), 2)!
                for (k, c) in ring.enumerated() {
                    let (x, y) = transform(c)
                    GEOSCoordSeq_setXY_r(h, seq, UInt32(k), x, y)
                }
                made.append(GEOSGeom_createLinearRing_r(h, seq))   // takes the sequence
            }
            let shell = made[0]
            var holes = Array(made.dropFirst())
            let poly = holes.withUnsafeMutableBufferPointer { GEOSGeom_createPolygon_r(h, shell, $0.baseAddress, UInt32($0.count)) }
            parts.append(poly)                                      // takes shell and holes
        }
        return parts.withUnsafeMutableBufferPointer {
            GEOSGeom_createCollection_r(h, Int32(GEOS_MULTIPOLYGON.rawValue), $0.baseAddress, UInt32($0.count))!
        }
    }

    /// Geodesic distance from the point to the polygon boundary, with the nearest
    /// boundary point found by GEOS in the local plane of the point (x = lon·kx, y = lat·ky,
    /// kx, ky from the WGS84 radii of curvature at the point's latitude).
    func boundaryDistance(_ k: Int, lat: Double, lon: Double) -> Double {
        let a = Geodesic.wgs84A, f = Geodesic.wgs84F
        let e2 = f * (2 - f)
        let phi = lat * .pi / 180
        let w = 1 - e2 * sin(phi) * sin(phi)
        let m = a * (1 - e2) / pow(w, 1.5), n = a / w.squareRoot()
        let ky = m * .pi / 180, kx = n * cos(phi) * .pi / 180
        let g = Self.makeGeometry(h, polygonRings[k]!, transform: { (($0.lon - lon) * kx, ($0.lat - lat) * ky) })
        defer { GEOSGeom_destroy_r(h, g) }
        let boundary = GEOSBoundary_r(h, g)!
        defer { GEOSGeom_destroy_r(h, boundary) }
        let origin = GEOSGeom_createPointFromXY_r(h, 0, 0)!
        defer { GEOSGeom_destroy_r(h, origin) }
        let seq = GEOSNearestPoints_r(h, boundary, origin)!
        defer { GEOSCoordSeq_destroy_r(h, seq) }
        var x = 0.0, y = 0.0
        GEOSCoordSeq_getXY_r(h, seq, 0, &x, &y)
        return Geodesic.wgs84.distance(lat1: lat, lon1: lon, lat2: lat + y / ky, lon2: lon + x / kx)
    }

    /// inside / outside-without-margin / outside-with-margin, or nil when uncertain.
    func classify(_ k: Int, lat: Double, lon: Double, acc: Double) -> (inside: Bool, out: Bool, outMargin: Bool) {
        switch fences[k].shape {
        case .circle(let clat, let clon, let r):
            // Conservative skip, independent of the engine: one degree of latitude is ≥ 110.5 km.
            if abs(lat - clat) * 110_500 > r + acc + margin + 1 { return (false, true, true) }
            let d = Geodesic.wgs84.distance(lat1: clat, lon1: clon, lat2: lat, lon2: lon)
            return (d + acc <= r, d - acc > r, d - acc > r + margin)
        case .polygon:
            let e = envelopes[k]
            let slackDeg = (acc + margin + 1000) / 50_000   // generous: a degree is ≥ 50 km below ±63° latitude
            let covered: Bool
            if lon < e.minX - slackDeg || lon > e.maxX + slackDeg || lat < e.minY - slackDeg || lat > e.maxY + slackDeg {
                return (false, true, true)
            }
            let pt = GEOSGeom_createPointFromXY_r(h, lon, lat)!
            covered = GEOSPreparedCovers_r(h, prepared[k], pt) == 1
            GEOSGeom_destroy_r(h, pt)
            if acc == 0 && margin == 0 { return (covered, !covered, !covered) }
            let b = boundaryDistance(k, lat: lat, lon: lon)
            if covered { return (b >= acc, false, false) }
            return (false, b > acc, b - acc > margin)
        }
    }

    /// What a device remembers, keyed by fence identifier (absent: unknown), so that a run can
    /// continue with another fence set.
    struct DeviceMemory {
        var state: [String: State] = [:]
        var since: [String: Double] = [:]
        var dwelt: Set<String> = []
        var consumed: Set<String> = []
    }

    /// Every device's memory, in order of first appearance.
    struct Memory {
        var devices: [Int32: DeviceMemory] = [:]
        var order: [Int32] = []

        /// Forgets the given fences (removed, or changed: they restart unknown).
        mutating func forget(_ ids: Set<String>) {
            for d in devices.keys {
                for id in ids {
                    devices[d]!.state[id] = nil; devices[d]!.since[id] = nil
                    devices[d]!.dwelt.remove(id); devices[d]!.consumed.remove(id)
                }
            }
        }
    }

    func run(_ fixes: [Fix]) -> [Event] {
        var memory = Memory()
        return run(fixes, memory: &memory)
    }

    /// Evaluates fixes starting from `memory` and leaves the devices' memory there; events
    /// of this call grouped by device in order of first appearance (across calls).
    func run(_ fixes: [Fix], memory: inout Memory) -> [Event] {
        var perDevice: [Int32: [Event]] = [:]
        let idOrder = fences.indices.sorted { fences[$0].id.utf8.lexicographicallyPrecedes(fences[$1].id.utf8) }
        for fix in fixes {
            let d = fix.device
            if memory.devices[d] == nil { memory.devices[d] = DeviceMemory(); memory.order.append(d) }
            var m = memory.devices[d]!
            var events: [Event] = []
            for k in idOrder {
                let f = fences[k]
                let c = classify(k, lat: fix.lat, lon: fix.lon, acc: fix.accuracy)
                var emitted: [(String, Bool)] = []
                switch m.state[f.id] ?? .unknown {
                case .unknown:
                    if c.inside { m.state[f.id] = .inside; m.since[f.id] = fix.time; m.dwelt.remove(f.id); emitted.append(("enter", true)) }
                    else if c.out { m.state[f.id] = .outside }
                case .outside:
                    if c.inside { m.state[f.id] = .inside; m.since[f.id] = fix.time; m.dwelt.remove(f.id); emitted.append(("enter", false)) }
                case .inside:
                    if c.outMargin { m.state[f.id] = .outside; emitted.append(("exit", false)) }
                }
                if m.state[f.id] == .inside, !m.dwelt.contains(f.id), let dw = f.options.dwell ?? defaultDwell, fix.time - m.since[f.id]! >= dw {
                    m.dwelt.insert(f.id)
                    emitted.append(("dwell", false))
                }
                for (type, initial) in emitted {
                    if type == "enter" && !f.options.notifyOnEntry { continue }
                    if type == "exit" && !f.options.notifyOnExit { continue }
                    if !f.options.repeats {
                        if m.consumed.contains(f.id) { continue }
                        m.consumed.insert(f.id)
                    }
                    events.append(Event(device: d, fence: f.id, type: type, time: fix.time, initial: initial))
                }
            }
            memory.devices[d] = m
            perDevice[d, default: []].append(contentsOf: events)
        }
        return memory.order.flatMap { perDevice[$0] ?? [] }
    }
}
