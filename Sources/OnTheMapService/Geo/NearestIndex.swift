import Foundation

/// An immutable index of points on the Earth that answers "the k nearest to here".
///
/// Points are stored as 3-D unit vectors: the straight-line (chord) distance between two unit
/// vectors grows monotonically with the great-circle distance, so nearest by chord is nearest on
/// the sphere, with no special cases at the poles or the antimeridian. Below
/// ``bruteForceLimit`` entries the index scans every point; above it, it builds a k-d tree.
///
/// Ties (equal distance, e.g. two pins on the same spot) go to the most recent `updatedAt`, then
/// to the earlier entry in the input, so answers are deterministic.
public struct NearestIndex<Payload: Sendable>: Sendable {
    /// One point to index.
    public struct Entry: Sendable {
        public var coordinate: Coordinate
        public var payload: Payload
        /// The owner's key (a pin's `uniqueKey`), used to leave the asker out of answers.
        public var key: String?
        /// Breaks ties between equally distant entries: the most recent wins.
        public var updatedAt: Date

        public init(coordinate: Coordinate, payload: Payload, key: String? = nil, updatedAt: Date = .distantPast) {
            self.coordinate = coordinate
            self.payload = payload
            self.key = key
            self.updatedAt = updatedAt
        }
    }

    /// One answer: the payload, where it is, and how far it is from the query point.
    public struct Neighbour: Sendable {
        public var payload: Payload
        public var coordinate: Coordinate
        public var distanceKilometres: Double

        public init(payload: Payload, coordinate: Coordinate, distanceKilometres: Double) {
            self.payload = payload
            self.coordinate = coordinate
            self.distanceKilometres = distanceKilometres
        }
    }

    /// Below this many entries a linear scan is faster than a tree.
    public static var bruteForceLimit: Int { 10_000 }

    private let tree: PointTree
    // Indexed by input position.
    private let payloads: [Payload]
    private let coordinates: [Coordinate]
    private let keyTable: [String: Int32]

    /// The number of indexed entries (entries with an invalid coordinate are left out).
    public var count: Int { payloads.count }

    /// Builds the index. Entries whose coordinate is not valid are left out.
    public init(entries: [Entry]) {
        var keyTable: [String: Int32] = [:]
        var keyIds: [Int32] = []
        for entry in entries where entry.coordinate.isValid {
            if let key = entry.key {
                if let id = keyTable[key] {
                    keyIds.append(id)
                } else {
                    let id = Int32(keyTable.count)
                    keyTable[key] = id
                    keyIds.append(id)
                }
            } else {
                keyIds.append(-1)
            }
        }
        let valid = entries.filter { $0.coordinate.isValid }
        self.init(
            coordinates: valid.map(\.coordinate), payloads: valid.map(\.payload), keyIds: keyIds,
            updatedAt: valid.map { $0.updatedAt.timeIntervalSinceReferenceDate }, keyTable: keyTable)
    }

    /// Builds the index from parallel arrays whose owners are already numbered (`keyIds`, -1 for
    /// none), keeping no table of key strings: ask with ``nearest(to:k:excludingKeyId:)``.
    /// `updatedAt` is in seconds since the reference date. Entries whose coordinate is not valid are
    /// left out.
    public init(coordinates: [Coordinate], payloads: [Payload], keyIds: [Int32], updatedAt: [Double]) {
        precondition(payloads.count == coordinates.count && keyIds.count == coordinates.count)
        precondition(updatedAt.count == coordinates.count)
        if coordinates.allSatisfy(\.isValid) {
            self.init(
                coordinates: coordinates, payloads: payloads, keyIds: keyIds, updatedAt: updatedAt, keyTable: [:])
        } else {
            let valid = coordinates.indices.filter { coordinates[$0].isValid }
            self.init(
                coordinates: valid.map { coordinates[$0] }, payloads: valid.map { payloads[$0] },
                keyIds: valid.map { keyIds[$0] }, updatedAt: valid.map { updatedAt[$0] }, keyTable: [:])
        }
    }

    private init(
        coordinates: [Coordinate], payloads: [Payload], keyIds: [Int32], updatedAt: [Double],
        keyTable: [String: Int32]
    ) {
        self.tree = PointTree(
            points: coordinates.map(GreatCircle.unitVector), keyIds: keyIds, recency: updatedAt,
            originalIndex: (0..<Int32(coordinates.count)).map { $0 },
            buildTree: coordinates.count >= Self.bruteForceLimit)
        self.payloads = payloads
        self.coordinates = coordinates
        self.keyTable = keyTable
    }

    /// Builds the index from bare (coordinate, payload) pairs: no keys, ties go to input order.
    public init(_ pairs: [(coordinate: Coordinate, payload: Payload)]) {
        self.init(entries: pairs.map { Entry(coordinate: $0.coordinate, payload: $0.payload) })
    }

    /// The `k` entries nearest to `origin`, nearest first, leaving out every entry whose key is
    /// `excludingKey` (the asker's own pin). Returns fewer when the index holds fewer.
    public func nearest(to origin: Coordinate, k: Int, excludingKey: String? = nil) -> [Neighbour] {
        nearest(to: origin, k: k, excludingKeyId: excludingKey.flatMap { keyTable[$0] })
    }

    /// The `k` entries nearest to `origin`, nearest first, leaving out every entry whose key id is
    /// `excludingKeyId` (ids as given to ``init(coordinates:payloads:keyIds:updatedAt:)``).
    public func nearest(to origin: Coordinate, k: Int, excludingKeyId: Int32?) -> [Neighbour] {
        guard k > 0, origin.isValid, !payloads.isEmpty else { return [] }
        // -2 matches no entry, not even keyless ones (-1).
        let excluded = excludingKeyId.map { $0 < 0 ? -2 : $0 } ?? -2
        let best = tree.nearest(to: GreatCircle.unitVector(origin), k: min(k, payloads.count), excluded: excluded)
        return best.map { item in
            let input = Int(item.index)
            let chord = item.squaredChord.squareRoot()
            return Neighbour(
                payload: payloads[input], coordinate: coordinates[input],
                distanceKilometres: GreatCircle.earthRadiusKilometres * GreatCircle.centralAngle(chord: chord))
        }
    }
}

/// Unit vectors with their owners and recency, searched for the k nearest (non-generic, so the
/// hot loop is compiled for concrete types). Either one leaf (a linear scan) or a k-d tree.
struct PointTree: Sendable {
    struct Node: Sendable {
        /// 0, 1 or 2 for an inner node; -1 for a leaf.
        var dimension: Int32
        var split: Double
        var lower: Int32
        var upper: Int32
        /// Index of the right child (the left child follows its parent directly).
        var right: Int32
    }

    static let leafSize = 12

    // Indexed by tree position (points are reordered while building).
    private let points: [SIMD3<Double>]
    private let keyIds: [Int32]
    private let recency: [Double]
    private let originalIndex: [Int32]
    private let nodes: [Node]

    init(points: [SIMD3<Double>], keyIds: [Int32], recency: [Double], originalIndex: [Int32], buildTree: Bool) {
        guard buildTree, points.count > Self.leafSize else {
            self.points = points
            self.keyIds = keyIds
            self.recency = recency
            self.originalIndex = originalIndex
            self.nodes = [Node(dimension: -1, split: 0, lower: 0, upper: Int32(points.count), right: -1)]
            return
        }
        var builder = TreeBuilder(
            points: points, keyIds: keyIds, recency: recency, originalIndex: originalIndex, leafSize: Self.leafSize)
        // A leaf holds more than half of leafSize points, so there are fewer than 4n / leafSize nodes.
        builder.nodes.reserveCapacity(4 * points.count / Self.leafSize + 1)
        builder.build(lower: 0, upper: points.count)
        self.points = builder.points
        self.keyIds = builder.keyIds
        self.recency = builder.recency
        self.originalIndex = builder.originalIndex
        self.nodes = builder.nodes
    }

    /// The best `k` candidates for `query`, best first, skipping points owned by `excluded`.
    func nearest(to query: SIMD3<Double>, k: Int, excluded: Int32) -> [Candidate] {
        var best = BestList(capacity: k)
        points.withUnsafeBufferPointer { points in
            keyIds.withUnsafeBufferPointer { keyIds in
                recency.withUnsafeBufferPointer { recency in
                    originalIndex.withUnsafeBufferPointer { originalIndex in
                        nodes.withUnsafeBufferPointer { nodes in
                            let search = Search(
                                points: points, keyIds: keyIds, recency: recency,
                                originalIndex: originalIndex, nodes: nodes, query: query, excluded: excluded)
                            search.visit(0, into: &best)
                        }
                    }
                }
            }
        }
        return best.items
    }

    private struct Search {
        let points: UnsafeBufferPointer<SIMD3<Double>>
        let keyIds: UnsafeBufferPointer<Int32>
        let recency: UnsafeBufferPointer<Double>
        let originalIndex: UnsafeBufferPointer<Int32>
        let nodes: UnsafeBufferPointer<Node>
        let query: SIMD3<Double>
        let excluded: Int32

        func visit(_ nodeIndex: Int, into best: inout BestList) {
            let node = nodes[nodeIndex]
            if node.dimension < 0 {
                for position in Int(node.lower)..<Int(node.upper) where keyIds[position] != excluded {
                    let delta = points[position] - query
                    let squared = (delta * delta).sum()
                    if best.isFull && squared > best.worstSquaredChord { continue }
                    best.consider(
                        Candidate(
                            squaredChord: squared, recency: recency[position], index: originalIndex[position]))
                }
                return
            }
            let difference = query[Int(node.dimension)] - node.split
            let near = difference < 0 ? nodeIndex + 1 : Int(node.right)
            let far = difference < 0 ? Int(node.right) : nodeIndex + 1
            visit(near, into: &best)
            // Equal distances must still be visited: a tie may be more recent.
            if !best.isFull || difference * difference <= best.worstSquaredChord {
                visit(far, into: &best)
            }
        }
    }

    struct Candidate {
        var squaredChord: Double
        var recency: Double
        /// The entry's position in the input.
        var index: Int32

        /// Nearer first; at equal distance the more recent, then the earlier input.
        func isBetter(than other: Candidate) -> Bool {
            if squaredChord != other.squaredChord { return squaredChord < other.squaredChord }
            if recency != other.recency { return recency > other.recency }
            return index < other.index
        }
    }

    /// The best `capacity` candidates so far, kept sorted (k is small).
    struct BestList {
        let capacity: Int
        var items: [Candidate] = []

        init(capacity: Int) {
            self.capacity = capacity
            items.reserveCapacity(capacity + 1)
        }

        var isFull: Bool { items.count >= capacity }
        var worstSquaredChord: Double { items.last?.squaredChord ?? .infinity }

        mutating func consider(_ candidate: Candidate) {
            if isFull, let worst = items.last, !candidate.isBetter(than: worst) { return }
            var position = items.count
            while position > 0 && candidate.isBetter(than: items[position - 1]) { position -= 1 }
            items.insert(candidate, at: position)
            if items.count > capacity { items.removeLast() }
        }
    }
}

/// Builds a k-d tree in place: each inner node splits its range at the median of the dimension
/// with the widest spread; ranges of at most `leafSize` points become leaves.
private struct TreeBuilder {
    var points: [SIMD3<Double>]
    var keyIds: [Int32]
    var recency: [Double]
    var originalIndex: [Int32]
    let leafSize: Int
    var nodes: [PointTree.Node] = []

    mutating func build(lower: Int, upper: Int) {
        let nodeIndex = nodes.count
        nodes.append(PointTree.Node(dimension: -1, split: 0, lower: Int32(lower), upper: Int32(upper), right: -1))
        guard upper - lower > leafSize else { return }
        var minimum = SIMD3<Double>(repeating: .infinity)
        var maximum = SIMD3<Double>(repeating: -.infinity)
        for position in lower..<upper {
            minimum = pointwiseMin(minimum, points[position])
            maximum = pointwiseMax(maximum, points[position])
        }
        let spread = maximum - minimum
        var dimension = 0
        if spread[1] > spread[dimension] { dimension = 1 }
        if spread[2] > spread[dimension] { dimension = 2 }
        let middle = (lower + upper) / 2
        select(middle, lower: lower, upper: upper, dimension: dimension)
        nodes[nodeIndex].dimension = Int32(dimension)
        nodes[nodeIndex].split = points[middle][dimension]
        build(lower: lower, upper: middle)
        nodes[nodeIndex].right = Int32(nodes.count)
        build(lower: middle, upper: upper)
    }

    /// Quickselect: afterwards points[lower..<k] ≤ points[k] ≤ points[k+1..<upper] in `dimension`.
    private mutating func select(_ k: Int, lower: Int, upper: Int, dimension: Int) {
        var low = lower
        var high = upper - 1
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ UInt64(k)
        while low < high {
            // A cheap deterministic pseudo-random pivot avoids quadratic cases on sorted input.
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let pivotPosition = low + Int((state >> 33) % UInt64(high - low + 1))
            let pivot = points[pivotPosition][dimension]
            var i = low
            var j = high
            while i <= j {
                while points[i][dimension] < pivot { i += 1 }
                while points[j][dimension] > pivot { j -= 1 }
                if i <= j {
                    swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j {
                high = j
            } else if k >= i {
                low = i
            } else {
                return
            }
        }
    }

    private mutating func swapAt(_ i: Int, _ j: Int) {
        points.swapAt(i, j)
        keyIds.swapAt(i, j)
        recency.swapAt(i, j)
        originalIndex.swapAt(i, j)
    }
}

extension NearestIndex where Payload == StudentLocation {
    /// Indexes pins by their coordinate, keyed by `uniqueKey`, ties by `updatedAt`.
    public init(locations: [StudentLocation]) {
        self.init(
            entries: locations.map {
                Entry(coordinate: $0.coordinate, payload: $0, key: $0.uniqueKey, updatedAt: $0.updatedAt)
            })
    }
}
