import Foundation
import XCTest
import GeofenceKit

/// Which fence files go through GDAL (docs/fences.md#input-formats): by prefix, extension and
/// magic bytes; our own GeoJSON and CSV names never do.
final class VectorSourceTests: XCTestCase {
    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let dir = NSTemporaryDirectory() + "vector-source-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testDispatch() throws {
        let sqlite = Array("SQLite format 3\0".utf8) + [UInt8](repeating: 0, count: 84)
        XCTAssertEqual(FenceLoader.vectorSource(path: "gdal:PG:dbname=x"), "PG:dbname=x")
        XCTAssertEqual(FenceLoader.vectorSource(path: "/vsicurl/https://example.org/a.fgb"), "/vsicurl/https://example.org/a.fgb")
        // Magic bytes under an unknown name; our extensions stay ours whatever the bytes.
        let dat = try file("fences.dat", sqlite)
        XCTAssertEqual(FenceLoader.vectorSource(path: dat), dat)
        XCTAssertNil(FenceLoader.vectorSource(path: try file("fences.csv", sqlite)))
        XCTAssertNil(FenceLoader.vectorSource(path: try file("fences.JSON", sqlite)))
        let fgb = try file("x.bin", [0x66, 0x67, 0x62, 0x03, 0x66, 0x67, 0x62, 0x00])
        XCTAssertEqual(FenceLoader.vectorSource(path: fgb), fgb)
        let kml = try file("places.xml", Array("<?xml version=\"1.0\"?>\n<kml xmlns=\"http://www.opengis.net/kml/2.2\">".utf8))
        XCTAssertEqual(FenceLoader.vectorSource(path: kml), kml)
        // Extensions, and a plain ZIP archive through /vsizip/ (absolute path).
        let gpkg = try file("a.GPKG", [0x7B])
        XCTAssertEqual(FenceLoader.vectorSource(path: gpkg), gpkg)
        let zip = try file("export.zip", [0x50, 0x4B, 0x03, 0x04, 0, 0])
        XCTAssertEqual(FenceLoader.vectorSource(path: zip), "/vsizip/" + zip)
        let shz = try file("a.shp.zip", [0x50, 0x4B, 0x03, 0x04, 0, 0])
        XCTAssertEqual(FenceLoader.vectorSource(path: shz), shz)
        // Text under an unknown name stays with the GeoJSON/CSV sniffing; a missing file is not GDAL's.
        XCTAssertNil(FenceLoader.vectorSource(path: try file("fences.txt", Array("id,lat,lon,radius\n".utf8))))
        XCTAssertNil(FenceLoader.vectorSource(path: "/nonexistent/fences.gpkg"))
    }

    /// A GeoPackage written by `VectorFenceWriter` reads back as the same fences, with typed
    /// properties, and problems located by layer and FID.
    func testWriteAndReadBack() throws {
        let dir = NSTemporaryDirectory() + "vector-source-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var a = Fence.circle(id: "a", lat: 45.764, lon: 4.8357, radius: 120.5)
        a.properties = [("brand", .string("Acme")), ("open", .bool(true)), ("floors", .number("3")), ("dwell", .number("300"))]
        let b = Fence.polygon(id: "b", polygons: [[[Coordinate(lon: 4.8, lat: 45.7), Coordinate(lon: 4.9, lat: 45.7),
                                                     Coordinate(lon: 4.9, lat: 45.8), Coordinate(lon: 4.8, lat: 45.7)]]])
        let path = dir + "/two.gpkg"
        try VectorFenceWriter.write([a, b], to: path, format: .geopackage)
        let set = try FenceSet.load(paths: [path], crs: nil)
        XCTAssertEqual(set.problems, [])
        XCTAssertEqual(set.fences.map(\.id), ["a", "b"])
        XCTAssertEqual(set.fences.map(\.shape), [a.shape, b.shape])
        XCTAssertEqual(set.fences[0].options.dwell, 300)
        let props = JSONValue.object(set.fences[0].properties)
        XCTAssertEqual(props["brand"], .string("Acme"))
        XCTAssertEqual(props["open"], .bool(true))
        XCTAssertEqual(props["floors"], .number("3"))
        XCTAssertEqual(props["radius"], .number("120.5"))
        XCTAssertEqual(set.fences[1].source.description, "\(path): layer \"two\", FID 2")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["two.gpkg"])
    }
}
