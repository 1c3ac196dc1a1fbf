import GeofenceBase
import Geodesy
import Dispatch

/// Classification through a `CandidateCache`.
extension FenceIndex {
    /// As `forEachClassified(lat:lon:accuracy:exitMargin:_:)`: the same calls
    /// of `body`, in the same order. When the query window lies in the region
    /// the cache was filled for, its candidates come from the cache (a box
    /// test per cached entry) instead of the tree; otherwise the tree is
    /// searched once over the window widened by the cache's reach and the
    /// cache refilled. A window crossing the antimeridian goes to the tree, and
    /// so do queries while the cache estimates the tree cheaper (see
    /// `CandidateCache.windowCost`).
    /// - Complexity: O(c + k) on a hit for c cached entries, k candidates;
    ///   O(log n + c) on a fill.
    /// - Precondition: `accuracy` and `exitMargin` ≥ 0 with a finite sum; `lat` in [-90, 90] and
    ///   `lon` finite (normalized to [-180, 180]).
    public func forEachClassified(lat: Double, lon: Double, accuracy: Double = 0, exitMargin: Double = 0,
                                  cache: inout CandidateCache, _ body: (FenceClassification) -> Bool) {
        precondition(accuracy >= 0 && exitMargin >= 0 && (accuracy + exitMargin).isFinite, "accuracy and margin must be finite and >= 0")
        let bypass = cache.bypassing()
        if bypass && !cache.wantsOccupancy {
            classifyInTree(lat: lat, lon: lon, accuracy: accuracy, exitMargin: exitMargin, body)
            return
        }
        var p = QueryPoint(lat: lat, lon: lon)
        let w = p.window(metres: accuracy + exitMargin)
        let covered = !bypass && cache.covers(w, generation: generation)
        if !covered && cache.wantsOccupancy {
            // Not answered from the cache: clear cells of the occupancy grid mean no box meets the window.
            if cache.occupancy?.generation != generation { cache.occupancy = occupancyGrid() }
            let clear = cache.occupancy!.isClear(w)
            cache.noteGrid(clear: clear)
            if clear { return }
        }
        if bypass {
            classifyInTree(lat: lat, lon: lon, accuracy: accuracy, exitMargin: exitMargin, body)
            return
        }
        var hit = false
        if covered {
            hit = true
        } else if w.crossesAntimeridian {
            cache.noteTree()
            classifyInTree(lat: lat, lon: lon, accuracy: accuracy, exitMargin: exitMargin, body)
            return
        } else {
            fill(&cache, around: w, cosLat: p.cosLat())
        }
        let gridded = cache.gridded
        var bits = gridded ? cache.candidates(w) : 0
        if hit { cache.noteHit(tests: gridded ? bits.nonzeroBitCount : cache.entries.count) }
        cache.entries.withUnsafeBufferPointer { es in
            /// False to stop.
            @inline(__always) func visit(_ k: Int, _ p: inout QueryPoint) -> Bool {
                let e = es[k]
                // A second box of a split fence: visited only when the window misses the
                // primary box, as `forEachCandidate` does (same single-precision window).
                if e.split >= 0 && QueryWindow(w).intersects(table.splits[Int(e.split)].primary) { return true }
                let r = Int(e.record)
                let s = fenceState(r, &p, accuracy: accuracy, margin: exitMargin)
                return s == .outside ? true : body(FenceClassification(slot: table.slotOf[r], state: s))
            }
            if gridded {
                while bits != 0 {
                    let k = bits.trailingZeroBitCount
                    bits &= bits &- 1
                    if es[k].meets(w) && !visit(k, &p) { return }
                }
            } else {
                for k in es.indices where es[k].meets(w) {
                    if !visit(k, &p) { return }
                }
            }
        }
    }

    /// `forEachClassified` without a cache, kept out of line so that the
    /// cached path stays small enough to be compiled as one piece.
    @inline(never)
    func classifyInTree(lat: Double, lon: Double, accuracy: Double, exitMargin: Double, _ body: (FenceClassification) -> Bool) {
        forEachClassified(lat: lat, lon: lon, accuracy: accuracy, exitMargin: exitMargin, body)
    }

    /// Refills the cache with every entry (main tree, second tree, tail, in
    /// `forEachCandidate` order) of a live fence whose box meets the window
    /// widened by `cache.reach` metres (clamped to the lon/lat ranges).
    func fill(_ cache: inout CandidateCache, around w: GeoBox, cosLat: Double) {
        gather(&cache, around: w, cosLat: cosLat)
        // Too many entries for the grid (a hit would test them all): narrow the region at once.
        var searches = 1
        while cache.entries.count > CandidateCache.gridLimit && cache.reach > CandidateCache.minimumReach && searches < 4 {
            cache.reach = Swift.max(CandidateCache.minimumReach, cache.reach * 0.25)
            gather(&cache, around: w, cosLat: cosLat)
            searches += 1
        }
        cache.generation = generation
        cache.treeCost = 80 * (main.height + 1)
        cache.buildGrid()
        cache.adapt(searches: searches)
    }

    /// Entry boxes the occupancy grid is sized for (main tree, second tree, tail).
    var entryCount: Int { main.count + delta.count + tail.count }

    /// The occupancy grid of every entry box of the index (main tree, second tree, tail),
    /// about `cellsPerBox` cells per entry, at most `maximumCells`.
    /// - Complexity: O(n) for n entries.
    /// With `threads` > 1 and a large main tree, its leaves are marked by that many workers
    /// into grids of their own, merged word by word (the same bits).
    func occupancyGrid(cellsPerBox: Int = OccupancyGrid.cellsPerBox, maximumCells: Int = OccupancyGrid.maximumCells,
                       threads: Int = 1) -> OccupancyGrid {
        var grid = OccupancyGrid(boxes: entryCount, generation: generation, cellsPerBox: cellsPerBox,
                                 maximumCells: maximumCells)
        let world = QueryWindow(GeoBox(west: -180, south: -90, east: 180, north: 90))
        let m = PackedRTree.nodeCapacity
        let lanes = main.leafLanes
        let parts = Swift.min(Swift.max(1, threads), Swift.max(1, lanes / 16_384))
        if parts > 1 {
            // Every leaf lane in order (padding lanes hold empty boxes, which mark nothing).
            var grids = [OccupancyGrid](repeating: grid, count: parts)
            let main = main
            grids.withUnsafeMutableBufferPointer { g in
                let shared = UnsafeShared(base: g.baseAddress!)
                DispatchQueue.concurrentPerform(iterations: parts) { t in
                    let lo = lanes * t / parts, hi = lanes * (t + 1) / parts
                    shared.base[t].mark(count: hi - lo) {
                        main.childBox((lo + $0) / PackedRTree.nodeCapacity, (lo + $0) % PackedRTree.nodeCapacity)
                    }
                }
            }
            grid = grids[0]
            for t in 1..<parts { grid.merge(grids[t]) }
        } else {
            grid.mark(count: lanes) { main.childBox($0 / PackedRTree.nodeCapacity, $0 % PackedRTree.nodeCapacity) }
        }
        if delta.count > 0 { _ = delta.search(world) { k in grid.mark(delta.childBox(k / m, k % m)); return true } }
        for e in tail { grid.mark(e.box) }
        return grid
    }

    /// Gathers the entries of the region around the window into the cache.
    func gather(_ cache: inout CandidateCache, around w: GeoBox, cosLat: Double) {
        let dlat = cache.reach / 110_000
        let dlon = dlat / Swift.max(cosLat, 0.02)
        let south = Swift.max(-90, w.south - dlat), north = Swift.min(90, w.north + dlat)
        let west = Swift.max(-180, w.west - dlon), east = Swift.min(180, w.east + dlon)
        let region = QueryWindow(GeoBox(west: west, south: south, east: east, north: north))
        cache.entries.removeAll(keepingCapacity: true)
        table.alive.withUnsafeBufferPointer { alive in
            @inline(__always) func isAlive(_ r: Int) -> Bool { alive[r >> 6] & (1 << UInt64(r & 63)) != 0 }
            /// An entry of the second tree or the tail, or a dead lane of the main tree.
            @inline(__always) func add(_ v: UInt32, _ box: BoundingBox) {
                guard v != EntryValue.none else { return }
                let payload = Int(v >> EntryValue.payloadShift)
                if v & EntryValue.secondary != 0 {
                    let r = Int(table.splits[payload].record)
                    if isAlive(r) { cache.entries.append(CachedEntry(box, record: r, split: Int32(payload))) }
                } else if isAlive(payload) {
                    cache.entries.append(CachedEntry(box, record: payload, split: -1))
                }
            }
            let m = PackedRTree.nodeCapacity
            _ = main.search(region) { k in
                let box = main.childBox(k / m, k % m)
                if isAlive(k) {
                    cache.entries.append(CachedEntry(box, record: k, split: -1))
                } else {
                    let v = main.value(at: k)
                    if v & EntryValue.secondary != 0 { add(v, box) }
                }
                return true
            }
            if delta.count > 0 {
                _ = delta.search(region) { k in
                    add(delta.value(at: k), delta.childBox(k / m, k % m))
                    return true
                }
            }
            for e in tail where region.intersects(e.box) { add(e.value, e.box) }
        }
        cache.west = west; cache.south = south; cache.east = east; cache.north = north
    }
}
