import GeofenceBase
import GeofenceIndex

extension FenceLoader {
    /// The circle fences of clean GeoJSON and CSV files, streamed by the fast readers
    /// straight into a compact index (docs/compiled-fences.md#memory): no ``Fence`` array is
    /// built, so a fence costs its table record from the moment it is read, and each file's
    /// bytes are released before the next is read and before the tree is built. The index
    /// and options are those the general path (``FenceSet/load(paths:crs:layer:fields:defaults:checkPolygons:keepProperties:)``,
    /// then `FenceIndex(_:)`) gives for the same files.
    ///
    /// nil when the files are not all of that kind: standard input, a compiled or GDAL
    /// source, a polygon, reprojection, properties asked for (``keepProperties``), any
    /// problem in any fence, or an identifier defined twice (within or across files). The
    /// caller then loads them on the general path, which reports every problem.
    /// - Parameter indexing: called with the fence count once every file is read, before
    ///   the tree is built (for a progress line).
    /// - Throws: ``GeofenceError/input(_:)`` when a file cannot be read or its gzip stream is
    ///   corrupt (as the general path would).
    /// - Complexity: O(total bytes + n log n) for n fences.
    public func compactCircles(paths: [String], indexing: (Int) -> Void = { _ in }) throws(GeofenceError) -> (index: FenceIndex, options: FenceOptionTable)? {
        guard reproject == nil, !keepProperties, !paths.isEmpty else { return nil }
        var builder: FenceIndex.Builder? = nil
        for path in paths {
            guard path != "-", !CompiledFenceFile.isCompiled(path: path), Self.vectorSource(path: path) == nil else { return nil }
            let bytes = try Self.textInput(path)
            let format = Self.format(path: Self.withoutGzipSuffix(path), bytes: bytes)
            if builder == nil { builder = FenceIndex.Builder(reserving: format == .csv ? Self.lineCount(bytes) : 0) }
            var b = builder!
            builder = nil   // one owner while appending (no copy of the growing table)
            let each = { (f: Fence) -> Bool in
                guard f.shape.isCircle else { return false }
                do { try b.append(f) } catch { return false }
                return true
            }
            guard format == .csv ? fastCSV(bytes, name: path, each) : fastGeoJSON(bytes, name: path, each) else { return nil }
            builder = b
        }
        guard let builder else { return nil }
        indexing(builder.count)
        do { return try builder.finish() } catch { return nil }
    }

    /// Line feeds in `bytes` (an upper bound on a CSV file's records, for reserving).
    static func lineCount(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { b in
            var n = 0
            for x in b where x == 0x0A { n += 1 }
            return n
        }
    }
}
