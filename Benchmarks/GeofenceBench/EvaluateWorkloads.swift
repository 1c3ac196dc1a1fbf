import Foundation
import GeofenceTestSupport
import GeofenceKit
import Glibc

/// Synthetic fixes: random-walk devices around the fences, and their CSV form.
///
/// Each device starts within 100 m of a random fence centre (so it begins
/// inside or near fences, as a phone near its user's places), moves every
/// 10 s at its own speed (1–15 m/s, log-uniform) with a heading that wanders
/// (normal steps of 0.3 rad), and reports accuracy uniform in 3–30 m. Fixes of
/// all devices are interleaved in time order (round robin), as a multi-device
/// log arrives. 200 fixes per device.
enum RandomWalk {
    static let fixesPerDevice = 200
    static let batchSize = EvaluationRun.defaultBatchSize   // as `geofence evaluate` reads
    static let startTime = 1_750_000_000.0

    /// Fixes in batches of `batchSize` (the CLI's batch size); `devices`
    /// walkers (default: one per `fixesPerDevice` fixes).
    static func batches(fences: [CircleRecord], fixes total: Int, devices deviceCount: Int? = nil, seed: UInt64) -> [[Fix]] {
        var rng = SeededGenerator(benchmarkSeed: seed ^ 0x5EED_0004)
        let devices = deviceCount ?? max(1, total / fixesPerDevice)
        var pos: [Point] = [], heading: [Double] = [], speed: [Double] = []
        for _ in 0..<devices {
            let f = fences[rng.int(fences.count)]
            pos.append(Synthetic.offset(Point(lat: f.lat, lon: f.lon), metres: rng.uniform(0, 100), bearing: rng.uniform(0, 2 * Double.pi)))
            heading.append(rng.uniform(0, 2 * Double.pi))
            speed.append(rng.logUniform(1, 15))
        }
        var out: [[Fix]] = []
        var batch: [Fix] = []
        batch.reserveCapacity(batchSize)
        var made = 0, step = 0
        while made < total {
            let t = startTime + Double(step) * 10
            for d in 0..<devices where made < total {
                heading[d] += 0.3 * rng.normal()
                pos[d] = Synthetic.offset(pos[d], metres: speed[d] * 10, bearing: heading[d])
                batch.append(Fix(device: Int32(d), time: t, lat: pos[d].lat, lon: pos[d].lon, accuracy: rng.uniform(3, 30)))
                made += 1
                if batch.count == batchSize {
                    out.append(batch)
                    batch = []
                    batch.reserveCapacity(batchSize)
                }
            }
            step += 1
        }
        if !batch.isEmpty { out.append(batch) }
        return out
    }

    /// Engine fences for circles (default options).
    static func engineFences(_ circles: [CircleRecord]) -> [Fence] {
        let src = SourceLocation(file: "synthetic")
        return circles.map { Fence(id: $0.id, shape: .circle(lat: $0.lat, lon: $0.lon, radius: $0.radius), source: src) }
    }

    /// Writes the fixes as CSV `device,time,lat,lon,accuracy` (Unix seconds, 7 decimals, which
    /// round-trip the generated doubles closely enough that events match the in-memory run).
    static func writeCSV(_ batches: [[Fix]], to path: String) throws -> Int {
        guard let f = fopen(path, "w") else { throw BenchError.failed("cannot create \(path)") }
        defer { fclose(f) }
        var buf: [UInt8] = []
        buf.reserveCapacity(1 << 20)
        var bytes = 0
        func put(_ s: StaticString) { s.withUTF8Buffer { buf.append(contentsOf: $0) } }
        func int(_ v: Int) {
            if v == 0 { buf.append(48); return }
            var x = v, tmp: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            var n = 0
            withUnsafeMutableBytes(of: &tmp) { t in
                while x > 0 { t[n] = UInt8(48 + x % 10); x /= 10; n += 1 }
                while n > 0 { n -= 1; buf.append(t[n]) }
            }
        }
        func fixed(_ v: Double, _ digits: Int) {
            var scale = 1.0
            for _ in 0..<digits { scale *= 10 }
            var m = Int((abs(v) * scale).rounded())
            if v < 0 && m != 0 { buf.append(45) }
            let ip = m / Int(scale)
            m -= ip * Int(scale)
            int(ip)
            buf.append(46)
            var div = Int(scale) / 10
            while div > 0 { buf.append(UInt8(48 + (m / div) % 10)); div /= 10 }
        }
        put("device,time,lat,lon,accuracy\n")
        for b in batches {
            for x in b {
                put("d"); int(Int(x.device)); buf.append(44)
                int(Int(x.time)); buf.append(44)
                fixed(x.lat, 7); buf.append(44)
                fixed(x.lon, 7); buf.append(44)
                fixed(x.accuracy, 1); buf.append(10)
                if buf.count >= 1 << 20 {
                    bytes += buf.count
                    guard fwrite(buf, 1, buf.count, f) == buf.count else { throw BenchError.failed("write failed: \(path)") }
                    buf.removeAll(keepingCapacity: true)
                }
            }
        }
        bytes += buf.count
        guard fwrite(buf, 1, buf.count, f) == buf.count else { throw BenchError.failed("write failed: \(path)") }
        return bytes
    }
}

/// Fingerprint of a run's events (order-dependent: docs/evaluation.md order is part of the answer).
func eventFingerprint(_ run: EvaluationRun) -> (count: Int, hash: UInt64) {
    var h: UInt64 = 0
    let events = run.events
    for e in events {
        h = Fingerprint.mix(h ^ UInt64(UInt32(bitPattern: e.device)) ^ UInt64(UInt32(bitPattern: e.fence)) << 32)
        h = Fingerprint.mix(h ^ UInt64(e.type.rawValue) ^ (e.initial ? 0x100 : 0) ^ e.time.bitPattern)
    }
    return (events.count, h)
}
