import Foundation
import XCTest
import GeofenceKit

/// The render frame: whole fences the trace meets, the picture centred, labels.
final class SVGRendererTests: XCTestCase {
    /// The points of every path titled `id` (fence outlines carry the fence id as title).
    func points(of id: String, in svg: String) -> [(Double, Double)] {
        var out: [(Double, Double)] = []
        for line in svg.split(separator: "\n") where line.hasPrefix("<path d=\"") && line.contains("<title>\(id)</title>") {
            let d = line.dropFirst(9).prefix { $0 != "\"" }
            let numbers = d.split(whereSeparator: { "MLZ ,".contains($0) }).compactMap { Double($0) }
            for k in stride(from: 0, to: numbers.count - 1, by: 2) { out.append((numbers[k], numbers[k + 1])) }
        }
        return out
    }

    /// The map area of the default 1000 × 800 picture.
    let map = (minX: 20.0, maxX: 980.0, minY: 50.0, maxY: 770.0)

    func render(_ fences: [Fence], _ fixes: [Fix], truth: [ReportedEvent] = []) throws -> String {
        let circles = try Simulator.osCircles(fences)
        return SVGRenderer().render(fences: fences, circles: circles, fixes: fixes, truth: truth, detected: [], plans: [], title: "t")
    }

    func testFencesTheTraceMeetsAreWholeAndLabelled() throws {
        // A 1.1 km trace along the equator into a 2 km circle centred past its end.
        let fixes = (0...10).map { Fix(device: 0, time: 1_700_000_000 + Double($0) * 60, lat: 0, lon: Double($0) * 0.001) }
        let met = Fence(id: "harbour", shape: .circle(lat: 0, lon: 0.02, radius: 2000))
        let far = Fence(id: "far away", shape: .circle(lat: 1, lon: 1, radius: 500))
        let svg = try render([met, far], fixes, truth: [ReportedEvent(device: 0, fence: 0, type: .enter, time: 1_700_000_000 + 600)])
        let outline = points(of: "harbour", in: svg)
        XCTAssertEqual(outline.count, 72)
        for p in outline {
            XCTAssertTrue(p.0 >= map.minX && p.0 <= map.maxX && p.1 >= map.minY && p.1 <= map.maxY, "clipped at \(p)")
        }
        XCTAssertTrue(svg.contains(">harbour</text>"), "labelled")
        XCTAssertFalse(svg.contains("far away"), "a fence far from the trace is not drawn")
        XCTAssertTrue(svg.contains(">start 2023-11-14T22:13:20Z</text>"))
        XCTAssertTrue(svg.contains(">end 2023-11-14T22:23:20Z</text>"))
    }

    func testTheTraceIsCentred() throws {
        // Wider than tall: the picture has height to spare, shared above and below.
        let fixes = (0...20).map { Fix(device: 0, time: 1_700_000_000 + Double($0), lat: 45 + Double($0 % 2) * 0.01, lon: 6 + Double($0) * 0.01) }
        let svg = try render([], fixes)
        let line = try XCTUnwrap(svg.split(separator: "\n").first { $0.hasPrefix("<path d=\"M") && $0.contains("stroke=\"#222\" stroke-width=\"1.4\"") })
        let numbers = line.dropFirst(9).prefix { $0 != "\"" }.split(whereSeparator: { "ML ,".contains($0) }).compactMap { Double($0) }
        let xs = stride(from: 0, to: numbers.count, by: 2).map { numbers[$0] }, ys = stride(from: 1, to: numbers.count, by: 2).map { numbers[$0] }
        XCTAssertEqual((xs.min()! + xs.max()!) / 2, (map.minX + map.maxX) / 2, accuracy: 1)
        XCTAssertEqual((ys.min()! + ys.max()!) / 2, (map.minY + map.maxY) / 2, accuracy: 1)
    }
}
