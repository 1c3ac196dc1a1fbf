// swift-tools-version:6.0
import PackageDescription

// Invariant checks (R-tree structure, evaluator state) are compiled in for debug
// builds only; release builds (the CLI, the benchmark runner) leave them out.
let checks: [SwiftSetting] = [.define("GEOFENCE_INTERNAL_CHECKS", .when(configuration: .debug))]

let package = Package(
    name: "geofence",
    products: [
        .executable(name: "geofence", targets: ["geofence"]),
        .executable(name: "geofence-bench", targets: ["GeofenceBench"]),
        .library(name: "GeofenceEngine", targets: ["GeofenceEngine"]),
        .library(name: "FenceIndex", targets: ["FenceIndex"]),
        .library(name: "Rotation", targets: ["Rotation"]),
        .library(name: "GeometryKit", targets: ["GeometryKit"]),
        .library(name: "Geodesy", targets: ["Geodesy"]),
    ],
    targets: [
        // System libraries (Debian: libgeos-dev, libproj-dev; scripts/install-deps installs them).
        .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CPROJ", pkgConfig: "proj", providers: [.apt(["libproj-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // WGS84 geodesics (PROJ's geod_*, pure computation, thread-safe) and fast bounded approximations.
        .target(name: "Geodesy", swiftSettings: checks),
        // Swift over GEOS and PROJ: contexts, owned geometries, prepared predicates, WKT/WKB/GeoJSON, CRS transforms.
        .target(name: "GeometryKit", dependencies: ["CGEOS", "CPROJ", "Geodesy"], swiftSettings: checks),
        // Pure-Swift packed R-tree over compiled fences (no GEOS).
        .target(name: "FenceIndex", dependencies: ["Geodesy"], swiftSettings: checks),
        // The nearest-K rotation planner and the public-SDK baselines (pure Swift, no GEOS).
        .target(name: "Rotation", dependencies: ["FenceIndex", "Geodesy"], swiftSettings: checks),
        // Fences, loaders, validation, evaluator, simulator, subsets.
        .target(name: "GeofenceEngine", dependencies: ["GeometryKit", "FenceIndex", "Rotation", "Geodesy", "CZlib"], swiftSettings: checks),
        .executableTarget(name: "geofence", dependencies: ["GeofenceEngine", "Rotation"], swiftSettings: checks),
        .executableTarget(name: "GeofenceBench", dependencies: ["GeofenceEngine", "FenceIndex", "Rotation", "GeometryKit", "Geodesy", "CGEOS"],
                          path: "Benchmarks/GeofenceBench"),

        .testTarget(name: "GeodesyTests", dependencies: ["Geodesy", "CPROJ"], swiftSettings: checks),
        .testTarget(name: "GeometryKitTests", dependencies: ["GeometryKit"], resources: [.copy("Fixtures")], swiftSettings: checks),
        .testTarget(name: "FenceIndexTests", dependencies: ["FenceIndex", "Geodesy", "CGEOS"], swiftSettings: checks),
        .testTarget(name: "RotationTests", dependencies: ["Rotation", "FenceIndex", "Geodesy"], swiftSettings: checks),
        .testTarget(name: "GeofenceEngineTests", dependencies: ["GeofenceEngine", "GeometryKit", "Geodesy", "CGEOS", "FenceIndex"], resources: [.copy("Fixtures")], swiftSettings: checks),
        .testTarget(name: "GeofenceCLITests", dependencies: ["GeofenceEngine"], swiftSettings: checks),
    ],
    swiftLanguageModes: [.v6]
)
