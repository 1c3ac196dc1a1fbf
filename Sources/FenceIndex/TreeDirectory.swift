/// A grid over the world that lets a small query window skip the upper levels
/// of a `PackedRTree`: each lon/lat cell lists the nodes of one low level
/// (`level`, 2: the parents of leaves) whose boxes meet it, in the order the
/// tree's depth-first search reaches them.
///
/// A window inside one cell is answered by testing the cell's nodes and
/// descending from those it meets: the same nodes are entered (a node's
/// ancestors' boxes hold its own, so they meet the window whenever it does)
/// and the entries come out in the same order as a search from the root,
/// without the root-to-`level` masks that are most of a point query's work on
/// a deep tree (3 of ~5.4 nodes at 235k fences). Windows spanning cells, or
/// crossing the antimeridian, search from the root.
///
/// Built once with the tree (the boxes never change afterwards); immutable,
/// so it is shared between copies of the tree and between threads.
final class TreeDirectory: @unchecked Sendable {
    /// The tree level whose nodes are listed.
    let level: Int
    let cols: Int
    let rows: Int
    /// Cell edges: column `i` spans `lonEdges[i]...lonEdges[i + 1]`, row `j` `latEdges[j]...latEdges[j + 1]`.
    private let lonEdges: [Float]
    private let latEdges: [Float]
    private let lonStorage: UnsafeMutablePointer<Float>
    private let latStorage: UnsafeMutablePointer<Float>
    private let colScale: Double
    private let rowScale: Double
    /// Cell `c` (row-major) lists `nodes[cellStart[c]..<cellStart[c + 1]]`.
    private let cellStart: UnsafeMutablePointer<Int32>
    private let nodes: UnsafeMutablePointer<Int32>
    /// The listed nodes' boxes, 4 words each (west, south, east, north).
    private let boxes: UnsafeMutablePointer<Float>
    private let entryCount: Int

    /// Cells per listed node (the grid's resolution).
    static let cellsPerNode = 64
    static let maxCells = 1 << 20
    /// Listed entries allowed per cell on average (huge boxes would make long lists: no directory then).
    static let maxEntriesPerCell = 8

    /// The directory of a tree, or nil when it would not pay (too shallow, or boxes too large).
    static func make(for tree: PackedRTree) -> TreeDirectory? {
        guard tree.height >= 4 else { return nil }
        let level = 2
        // Level `level` nodes in depth-first order (children in decreasing lane order, as `search` enters them).
        var order: [Int32] = []
        order.reserveCapacity(tree.levelEnd(level) - tree.levelStart(level))
        var stack: [(node: Int, level: Int)] = [(tree.root, tree.height)]
        while let (node, l) = stack.popLast() {
            if l == level { order.append(Int32(node)); continue }
            // Pushed in increasing lane order: popped in decreasing order.
            for lane in 0..<PackedRTree.nodeCapacity {
                let c = tree.child(node, level: l, lane: lane)
                if c < tree.levelEnd(l - 1) { stack.append((c, l - 1)) }
            }
        }
        let cells = min(maxCells, max(64, cellsPerNode * order.count))
        let rows = max(1, Int((Double(cells) / 2).squareRoot()))
        let cols = max(1, cells / rows)
        let lonEdges = (0...cols).map { i in i == 0 ? -180 : i == cols ? 180 : Float(-180 + 360 * Double(i) / Double(cols)) }
        let latEdges = (0...rows).map { j in j == 0 ? -90 : j == rows ? 90 : Float(-90 + 180 * Double(j) / Double(rows)) }
        let colScale = Double(cols) / 360, rowScale = Double(rows) / 180

        // Cell ranges of each node; counts, then the lists in depth-first order.
        var ranges: [(c0: Int, c1: Int, r0: Int, r1: Int)] = []
        ranges.reserveCapacity(order.count)
        var counts = [Int](repeating: 0, count: cols * rows + 1)
        var total = 0
        for n in order {
            let b = tree.nodeBox(Int(n), level: level)
            guard b.west <= b.east && b.south <= b.north else { ranges.append((1, 0, 1, 0)); continue }
            let c0 = firstCell(lonEdges, cols, colScale, 180, meeting: b.west), c1 = lastCell(lonEdges, cols, colScale, 180, at: b.east)
            let r0 = firstCell(latEdges, rows, rowScale, 90, meeting: b.south), r1 = lastCell(latEdges, rows, rowScale, 90, at: b.north)
            ranges.append((c0, c1, r0, r1))
            if c0 <= c1 && r0 <= r1 {
                total += (c1 - c0 + 1) * (r1 - r0 + 1)
                if total > maxEntriesPerCell * cols * rows { return nil }
                for r in r0...r1 { for c in c0...c1 { counts[r * cols + c + 1] += 1 } }
            }
        }
        for c in 0..<(cols * rows) { counts[c + 1] += counts[c] }
        let d = TreeDirectory(level: level, cols: cols, rows: rows, lonEdges: lonEdges, latEdges: latEdges,
                              colScale: colScale, rowScale: rowScale, cells: cols * rows, entries: total)
        for c in 0...(cols * rows) { d.cellStart[c] = Int32(counts[c]) }
        var fill = counts
        for (k, n) in order.enumerated() {
            let (c0, c1, r0, r1) = ranges[k]
            guard c0 <= c1 && r0 <= r1 else { continue }
            let b = tree.nodeBox(Int(n), level: level)
            for r in r0...r1 {
                for c in c0...c1 {
                    let at = fill[r * cols + c]
                    fill[r * cols + c] += 1
                    d.nodes[at] = n
                    d.boxes[4 * at] = b.west; d.boxes[4 * at + 1] = b.south
                    d.boxes[4 * at + 2] = b.east; d.boxes[4 * at + 3] = b.north
                }
            }
        }
        return d
    }

    private init(level: Int, cols: Int, rows: Int, lonEdges: [Float], latEdges: [Float], colScale: Double, rowScale: Double,
                 cells: Int, entries: Int) {
        self.level = level; self.cols = cols; self.rows = rows
        self.lonEdges = lonEdges; self.latEdges = latEdges
        lonStorage = .allocate(capacity: lonEdges.count)
        lonStorage.initialize(from: lonEdges, count: lonEdges.count)
        latStorage = .allocate(capacity: latEdges.count)
        latStorage.initialize(from: latEdges, count: latEdges.count)
        self.colScale = colScale; self.rowScale = rowScale
        cellStart = .allocate(capacity: cells + 1)
        nodes = .allocate(capacity: max(1, entries))
        boxes = .allocate(capacity: max(4, 4 * entries))
        entryCount = entries
    }

    deinit {
        cellStart.deallocate(); nodes.deallocate(); boxes.deallocate()
        lonStorage.deallocate(); latStorage.deallocate()
    }

    /// Bytes held.
    var memoryBytes: Int { 4 * (cols * rows + 1) + 20 * entryCount + 4 * (cols + rows + 2) }

    /// The first cell whose span reaches `v` (its upper edge >= v).
    private static func firstCell(_ edges: [Float], _ n: Int, _ scale: Double, _ half: Double, meeting v: Float) -> Int {
        var i = min(n - 1, max(0, Int((Double(v) + half) * scale)))
        while i > 0 && edges[i] >= v { i -= 1 }
        while i < n - 1 && edges[i + 1] < v { i += 1 }
        return i
    }

    /// The last cell whose span starts at or before `v` (its lower edge <= v).
    private static func lastCell(_ edges: [Float], _ n: Int, _ scale: Double, _ half: Double, at v: Float) -> Int {
        var i = min(n - 1, max(0, Int((Double(v) + half) * scale)))
        while i > 0 && edges[i] > v { i -= 1 }
        while i < n - 1 && edges[i + 1] <= v { i += 1 }
        return i
    }

    /// The lookup side, as plain pointers and numbers (copied into the tree:
    /// no reference counting on the query path). Valid while the directory lives.
    var view: View {
        View(level: level, cols: cols, rows: rows, lonEdges: lonStorage, latEdges: latStorage, colScale: colScale,
             rowScale: rowScale, cellStart: cellStart, nodes: nodes, boxes: boxes)
    }

    struct View: @unchecked Sendable {
        let level: Int
        let cols: Int
        let rows: Int
        let lonEdges: UnsafePointer<Float>
        let latEdges: UnsafePointer<Float>
        let colScale: Double
        let rowScale: Double
        let cellStart: UnsafePointer<Int32>
        let nodes: UnsafePointer<Int32>
        let boxes: UnsafePointer<Float>

        /// The last cell (of `n`) whose span starts at or before `v`.
        @inline(__always)
        static func lastCell(_ edges: UnsafePointer<Float>, _ n: Int, _ scale: Double, _ half: Double, at v: Float) -> Int {
            var i = Swift.min(n &- 1, Swift.max(0, Int((Double(v) + half) * scale)))
            while i > 0 && edges[i] > v { i &-= 1 }
            while i < n &- 1 && edges[i &+ 1] <= v { i &+= 1 }
            return i
        }

        /// The cell holding the whole window, or -1 (spans cells, crosses the antimeridian, or lies off the grid).
        @inline(__always)
        func cell(of q: QueryWindow) -> Int {
            if q.crosses || !(q.west >= -180 && q.east <= 180 && q.south >= -90 && q.north <= 90) { return -1 }
            let c = View.lastCell(lonEdges, cols, colScale, 180, at: q.west)
            guard q.east <= lonEdges[c &+ 1] else { return -1 }
            let r = View.lastCell(latEdges, rows, rowScale, 90, at: q.south)
            guard q.north <= latEdges[r &+ 1] else { return -1 }
            return r &* cols &+ c
        }
    }
}

extension TreeDirectory.View {
    /// No directory.
    static let none: TreeDirectory.View = {
        let zeroF = UnsafeMutablePointer<Float>.allocate(capacity: 4)
        zeroF.initialize(repeating: 0, count: 4)
        let zeroI = UnsafeMutablePointer<Int32>.allocate(capacity: 2)
        zeroI.initialize(repeating: 0, count: 2)
        return TreeDirectory.View(level: 0, cols: 0, rows: 0, lonEdges: zeroF, latEdges: zeroF, colScale: 0, rowScale: 0,
                                  cellStart: zeroI, nodes: zeroI, boxes: zeroF)
    }()
}
