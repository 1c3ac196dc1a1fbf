// swift-tools-version:6.0
import PackageDescription

// Invariant checks (R-tree structure, evaluator state) are compiled in for debug
// builds only; release builds (the CLI, the benchmark runner) leave them out.
let checks: [SwiftSetting] = [.define("GEOFENCE_INTERNAL_CHECKS", .when(configuration: .debug))]

// Modules follow the data path (docs/architecture.md): fences are read (GeofenceFences,
// the only fence-side user of GEOS/PROJ/GDAL), compiled into the index (GeofenceIndex), fixes
// are read (GeofenceLogs) and evaluated (GeofenceEvaluation); planning, simulation and
// subsets work over the index. GeofenceKit re-exports them all with the entry point
// `Geofencer`. The evaluator and the planner build without GEOS, PROJ and GDAL
// (scripts/check-module-deps checks it).
let package = Package(
    name: "geofence",
    products: [
        .executable(name: "geofence", targets: ["geofence"]),
        .executable(name: "geofence-bench", targets: ["GeofenceBench"]),
        .library(name: "GeofenceKit", targets: ["GeofenceKit"]),
    ],
    targets: [
        // System libraries (Debian: libgeos-dev, libproj-dev, libisal-dev, libgdal-dev; scripts/install-deps installs them).
        .systemLibrary(name: "CIsal", pkgConfig: "libisal", providers: [.apt(["libisal-dev"])]),
        // GEOS, PROJ and GDAL: headers at build time, each library opened with dlopen on first use
        // (Sources/CGEOS, Sources/CPROJ, Sources/CGDAL), so the CLI links none of them.
        .target(name: "CGEOS"),
        .target(name: "CPROJ"),
        .target(name: "CGDAL"),
        // Linux system calls Swift cannot reach directly (renameat2's RENAME_EXCHANGE).
        .systemLibrary(name: "CSystem"),
        // The SIGBUS guard of mapped log files (a file that shrinks while it is read).
        .target(name: "CMapGuard"),
        // Plain decimals converted with SSSE3, AVX2 or AVX-512 where the CPU has them (the CSV readers' fast path).
        .target(name: "CFastDecimal", linkerSettings: [.linkedLibrary("m")]),

        // WGS84 geodesics (Karney's algorithms in Swift) and fast bounded approximations.
        .target(name: "Geodesy", swiftSettings: checks),
        // Swift over GEOS and PROJ: contexts, owned geometries, prepared predicates, WKT/WKB/GeoJSON, CRS transforms.
        .target(name: "GeometryKit", dependencies: ["CGEOS", "CPROJ", "Geodesy"], swiftSettings: checks),
        // Swift over GDAL's OGR vector API: reading layers of any OGR source, writing GeoPackage and FlatGeobuf.
        .target(name: "GeofenceGDAL", dependencies: ["CGDAL"], swiftSettings: checks),
        // What every module shares: the error types, JSON and CSV codecs, atomic output files, SHA-256,
        // gzip inflation (ISA-L).
        .target(name: "GeofenceBase", dependencies: ["CMapGuard", "CIsal", "CSystem"], swiftSettings: checks),
        // Fences as values (Fence, FenceShape, Coordinate) and the packed R-tree over them (FenceIndex).
        .target(name: "GeofenceIndex", dependencies: ["GeofenceBase", "Geodesy"], swiftSettings: checks),
        // Location logs: CSV, NDJSON and GPX readers (gzip, stdin), device interning, times.
        .target(name: "GeofenceLogs", dependencies: ["GeofenceBase", "CMapGuard", "CFastDecimal", "CSystem"], swiftSettings: checks),
        // Fence files: GeoJSON and CSV loading, other vector formats through GDAL, validation and repair
        // (GEOS), reprojection (PROJ), writing.
        .target(name: "GeofenceFences", dependencies: ["GeofenceBase", "GeofenceIndex", "GeometryKit", "GeofenceGDAL", "Geodesy"], swiftSettings: checks),
        // The per-device state machines over the index: enter, exit and dwell events (pure Swift).
        .target(name: "GeofenceEvaluation", dependencies: ["GeofenceBase", "GeofenceIndex", "GeofenceLogs", "CSystem"], swiftSettings: checks),
        // The nearest-K region planner (which fences a phone monitors, and its refresh region) and
        // the public-SDK baselines (pure Swift).
        .target(name: "GeofencePlanning", dependencies: ["GeofenceIndex", "Geodesy"], swiftSettings: checks),
        // Replays of traces through a planner under an OS model, against full evaluation; SVG pictures.
        .target(name: "GeofenceSimulation", dependencies: ["GeofenceBase", "GeofenceIndex", "GeofenceLogs", "GeofenceEvaluation", "GeofencePlanning", "Geodesy"], swiftSettings: checks),
        // Regional subsets (bbox, polygon, radius, nearest N) and tile bundles with a coverage guarantee.
        .target(name: "GeofenceSubsets", dependencies: ["GeofenceBase", "GeofenceIndex", "GeofenceFences", "GeofenceEvaluation", "GeometryKit", "Geodesy", "CSystem"], swiftSettings: checks),
        // The library's front door: re-exports the modules above and adds `Geofencer`.
        .target(name: "GeofenceKit", dependencies: ["GeofenceBase", "GeofenceIndex", "GeofenceLogs", "GeofenceFences", "GeofenceGDAL", "GeofenceEvaluation",
                                                    "GeofencePlanning", "GeofenceSimulation", "GeofenceSubsets", "Geodesy"], swiftSettings: checks),
        // The command line: argument parsing, exit codes and wording over GeofenceKit.
        // Release builds link it as a position-dependent executable: its ~75,000 relative
        // relocations (Swift metadata) are then resolved by the linker, not at every start
        // (docs/architecture.md#start-up).
        .executableTarget(name: "geofence", dependencies: ["GeofenceKit"], swiftSettings: checks,
                          linkerSettings: [.unsafeFlags(["-Xclang-linker", "-no-pie"], .when(platforms: [.linux], configuration: .release))]),
        // The library example of docs/library.md (built and compared with the CLI by the tests).
        .executableTarget(name: "geofence-example", dependencies: ["GeofenceKit"], path: "docs/examples/QuickStart"),
        // libFuzzer targets, one per reader of untrusted bytes (Fuzz/README.md; `make fuzz`).
        .target(name: "FuzzSupport", dependencies: ["GeofenceKit", "GeofenceLogs", "CSystem"], path: "Fuzz/Support"),
        .executableTarget(name: "fuzz-fences-geojson", dependencies: ["FuzzSupport", "GeofenceKit"], path: "Fuzz/fences-geojson"),
        .executableTarget(name: "fuzz-fences-csv", dependencies: ["FuzzSupport", "GeofenceKit"], path: "Fuzz/fences-csv"),
        .executableTarget(name: "fuzz-log-csv", dependencies: ["FuzzSupport", "GeofenceKit"], path: "Fuzz/log-csv"),
        .executableTarget(name: "fuzz-log-ndjson", dependencies: ["FuzzSupport", "GeofenceKit"], path: "Fuzz/log-ndjson"),
        .executableTarget(name: "fuzz-log-gpx", dependencies: ["FuzzSupport", "GeofenceKit"], path: "Fuzz/log-gpx"),
        .executableTarget(name: "fuzz-log-time", dependencies: ["FuzzSupport", "GeofenceKit"], path: "Fuzz/log-time"),
        .executableTarget(name: "fuzz-log-gzip", dependencies: ["FuzzSupport", "GeofenceKit"], path: "Fuzz/log-gzip"),
        .executableTarget(name: "fuzz-state-file", dependencies: ["FuzzSupport", "GeofenceKit"], path: "Fuzz/state-file"),
        .executableTarget(name: "fuzz-compiled-fences", dependencies: ["FuzzSupport", "GeofenceKit", "GeofenceIndex"], path: "Fuzz/compiled-fences"),
        // The benchmark runner: GeofenceKit's public API against brute force and GEOS's STRtree.
        .executableTarget(name: "GeofenceBench", dependencies: ["GeofenceKit", "GeofenceTestSupport", "GeometryKit", "CGEOS"],
                          path: "Benchmarks/GeofenceBench", linkerSettings: [.linkedLibrary("geos_c")]),

        // Helpers shared by the test targets: seeded generators, brute-force references, the CLI runner.
        // The test and benchmark targets that call GEOS or PROJ directly (references, baselines)
        // link the libraries themselves.
        .target(name: "GeofenceTestSupport", dependencies: ["GeofenceKit", "GeometryKit", "Geodesy", "CGEOS", "CPROJ"],
                path: "Tests/GeofenceTestSupport", swiftSettings: checks,
                linkerSettings: [.linkedLibrary("geos_c"), .linkedLibrary("proj")]),
        .testTarget(name: "GeodesyTests", dependencies: ["Geodesy", "CPROJ", "GeofenceTestSupport"], swiftSettings: checks,
                    linkerSettings: [.linkedLibrary("proj")]),
        .testTarget(name: "GeometryKitTests", dependencies: ["GeometryKit", "GeofenceTestSupport"], resources: [.copy("Fixtures")], swiftSettings: checks),
        .testTarget(name: "GeofenceIndexTests", dependencies: ["GeofenceIndex", "Geodesy", "GeofenceTestSupport", "CGEOS"], swiftSettings: checks,
                    linkerSettings: [.linkedLibrary("geos_c")]),
        .testTarget(name: "GeofencePlanningTests", dependencies: ["GeofencePlanning", "GeofenceIndex", "Geodesy", "GeofenceTestSupport"], swiftSettings: checks),
        .testTarget(name: "GeofenceKitTests", dependencies: ["GeofenceKit", "GeometryKit", "Geodesy", "CGEOS", "GeofenceTestSupport"],
                    resources: [.copy("Fixtures")], swiftSettings: checks, linkerSettings: [.linkedLibrary("geos_c")]),
        .testTarget(name: "GeofenceCLITests", dependencies: ["GeofenceKit", "GeofenceTestSupport", "geofence", "geofence-example"], swiftSettings: checks),
    ],
    swiftLanguageModes: [.v6]
)
