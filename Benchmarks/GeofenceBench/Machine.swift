import GeofenceKit
import GeofenceTestSupport
import Foundation
import GeometryKit

/// Facts about the machine and toolchain, recorded with every result.
struct MachineFacts {
    var cores: Int
    var cpuModel: String
    var memoryGB: Double
    var kernel: String
    var swiftVersion: String
    var geosVersion: String
    var projVersion: String
    var date: String
    /// 1-minute load average when the run started: other work on the machine skews timings
    /// (this machine's 2 cores are shared), above all thread scaling.
    var loadAverage: Double

    static func collect() -> MachineFacts {
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        var u = utsname()
        uname(&u)
        let kernel = withUnsafeBytes(of: &u.release) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        let f = ISO8601DateFormatter()
        return MachineFacts(
            cores: ProcessInfo.processInfo.activeProcessorCount,
            cpuModel: cpu,
            memoryGB: Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824,
            kernel: kernel,
            swiftVersion: swiftVersion(),
            geosVersion: GeometryKit.geosVersion,
            projVersion: GeometryKit.projVersion,
            date: f.string(from: Date()),
            loadAverage: loadAverage())
    }

    /// The 1-minute load average (/proc/loadavg).
    static func loadAverage() -> Double {
        guard let s = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8), let first = s.split(separator: " ").first else { return .nan }
        return Double(first) ?? .nan
    }

    /// The compiler that built this binary (compile-time), and `swift --version` when it runs.
    static func swiftVersion() -> String {
        var compiled = "unknown"
        #if compiler(>=6.3)
        compiled = ">= 6.3"
        #elseif compiler(>=6.2)
        compiled = "6.2"
        #elseif compiler(>=6.1)
        compiled = "6.1"
        #elseif compiler(>=6.0)
        compiled = "6.0"
        #endif
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["swift", "--version"]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = Pipe()
        do {
            try p.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            if let line = String(data: data, encoding: .utf8)?.split(separator: "\n").first(where: { $0.contains("Swift version") }) {
                return String(line)
            }
        } catch {}
        return "compiled with Swift \(compiled)"
    }

    var summary: String {
        "\(cores) cores, \(cpuModel), \(String(format: "%.0f", memoryGB)) GB, Linux \(kernel); \(swiftVersion); GEOS \(geosVersion); PROJ \(projVersion); load average \(String(format: "%.2f", loadAverage)) at start"
    }
}
