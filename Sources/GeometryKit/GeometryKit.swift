import CGEOS
import CPROJ

/// Versions of the C libraries GeometryKit runs on, read from the libraries at run time.
public enum GeometryKit {
    /// The GEOS library version, e.g. "3.11.1"; "unavailable" when libgeos_c cannot be loaded.
    public static var geosVersion: String {
        guard (try? GEOSLibrary.load()) != nil else { return "unavailable" }
        // GEOSversion has no reentrant variant and is available under GEOS_USE_ONLY_R_API;
        // it returns a static string and cannot fail.
        return geos.GEOSversion().map { String(cString: $0) } ?? "unknown"
    }

    /// The PROJ library version, e.g. "9.1.1"; "unavailable" when libproj cannot be loaded.
    public static var projVersion: String {
        guard (try? PROJLibrary.load()) != nil else { return "unavailable" }
        // proj_info returns a struct by value whose `release` is a static string; it cannot fail.
        let info = proj.proj_info()
        guard let release = info.release else { return "unknown" }
        return String(cString: release)
    }
}
