import Foundation
import XCTest
import GeofenceTestSupport

/// Runs the built `geofence` binary (it sits next to the test bundle) and captures its output.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum CLI {
    static var productsDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static func fixture(_ name: String) -> String {
        packageRoot.appendingPathComponent("Tests/GeofenceKitTests/Fixtures/" + name).path
    }

    static func data(_ name: String) -> String {
        packageRoot.appendingPathComponent("data/" + name).path
    }

    static func run(_ args: [String], stdin: String? = nil) throws -> CLIResult {
        let p = Process()
        p.executableURL = productsDirectory.appendingPathComponent("geofence")
        p.arguments = args
        // Output goes to temporary files: no pipe can fill up and block the child.
        let outPath = tempPath("stdout"), errPath = tempPath("stderr")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: outPath); try? FileManager.default.removeItem(atPath: errPath) }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        p.standardOutput = out
        p.standardError = err
        if let stdin {
            let inp = Pipe()
            p.standardInput = inp
            try p.run()
            inp.fileHandleForWriting.write(Data(stdin.utf8))
            try inp.fileHandleForWriting.close()
        } else {
            p.standardInput = FileHandle.nullDevice
            try p.run()
        }
        p.waitUntilExit()
        try out.close(); try err.close()
        let o = FileManager.default.contents(atPath: outPath) ?? Data()
        let e = FileManager.default.contents(atPath: errPath) ?? Data()
        return CLIResult(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    static func tempPath(_ name: String) -> String {
        NSTemporaryDirectory() + "geofence-cli-\(UUID().uuidString)-" + name
    }
}
