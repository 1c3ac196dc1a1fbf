import CGEOS
import CPROJ

/// Versions of the C libraries GeometryKit runs on, read from the libraries at run time.
public enum GeometryKit {
    /// The GEOS library version, e.g. "3.11.1".
    public static var geosVersion: String {
        // GEOSversion has no reentrant variant and is available under GEOS_USE_ONLY_R_API;
        // it returns a static string and cannot fail.
        String(cString: GEOSversion())
    }

    /// The PROJ library version, e.g. "9.1.1".
    public static var projVersion: String {
        // proj_info returns a struct by value whose `release` is a static string; it cannot fail.
        let info = proj_info()
        guard let release = info.release else { return "unknown" }
        return String(cString: release)
    }
}
