import Foundation
import XCTest

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
        packageRoot.appendingPathComponent("Tests/GeofenceEngineTests/Fixtures/" + name).path
    }

    static func data(_ name: String) -> String {
        packageRoot.appendingPathComponent("data/" + name).path
    }

    static func run(_ args: [String], stdin: String? = nil) throws -> CLIResult {
        let p = Process()
        p.executableURL = productsDirectory.appendingPathComponent("geofence")
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        if let stdin {
            let inp = Pipe()
            p.standardInput = inp
            inp.fileHandleForWriting.write(Data(stdin.utf8))
            try inp.fileHandleForWriting.close()
        }
        try p.run()
        // Read both pipes before waiting so a large output cannot block the child.
        var o = Data(), e = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { e = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        o = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return CLIResult(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    static func tempPath(_ name: String) -> String {
        NSTemporaryDirectory() + "geofence-cli-\(UUID().uuidString)-" + name
    }
}
