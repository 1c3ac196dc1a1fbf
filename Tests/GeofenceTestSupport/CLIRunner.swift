import Foundation

/// What a run of a built executable gave: exit status and captured output.
public struct CLIResult {
    /// The exit status (or the signal number, for a killed process).
    public var status: Int32
    /// Everything written to standard output.
    public var stdout: String
    /// Everything written to standard error.
    public var stderr: String
}

/// Runs the package's built executables (they sit next to the test bundle) and finds its files.
public enum CLI {
    /// Where the build put the executables.
    public static var productsDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// The repository root.
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// A file under Tests/GeofenceKitTests/Fixtures.
    public static func fixture(_ name: String) -> String {
        packageRoot.appendingPathComponent("Tests/GeofenceKitTests/Fixtures/" + name).path
    }

    /// A file under data/.
    public static func data(_ name: String) -> String {
        packageRoot.appendingPathComponent("data/" + name).path
    }

    /// Runs `executable` (default `geofence`) with `args`, feeding `stdin` when given, from
    /// `directory` (default: the current one), and waits for it; with `timeout` (seconds), a
    /// run still going then is killed (status 9, SIGKILL) so a hang fails the test instead of
    /// stopping the suite.
    public static func run(_ args: [String], stdin: String? = nil, executable: String = "geofence",
                           directory: URL? = nil, timeout: Double? = nil) throws -> CLIResult {
        let p = Process()
        p.executableURL = productsDirectory.appendingPathComponent(executable)
        p.arguments = args
        if let directory { p.currentDirectoryURL = directory }
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
        if let timeout {
            let pid = p.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [p] in
                if p.isRunning { kill(pid, SIGKILL) }
            }
        }
        p.waitUntilExit()
        try out.close(); try err.close()
        let o = FileManager.default.contents(atPath: outPath) ?? Data()
        let e = FileManager.default.contents(atPath: errPath) ?? Data()
        return CLIResult(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    /// A fresh path in this test process's scratch directory (removed when the process exits,
    /// so a run of the suite leaves nothing in the temporary directory).
    public static func tempPath(_ name: String) -> String {
        scratchDirectory + "/\(UUID().uuidString)-" + name
    }

    /// One directory per test process for every `tempPath`, made on first use.
    public static let scratchDirectory: String = {
        let dir = NSTemporaryDirectory() + "geofence-cli-\(getpid())-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        scratchToRemove = dir
        atexit { if let dir = scratchToRemove { try? FileManager.default.removeItem(atPath: dir) } }
        return dir
    }()
}

/// The scratch directory `atexit` removes (a C callback cannot capture it).
nonisolated(unsafe) private var scratchToRemove: String?
