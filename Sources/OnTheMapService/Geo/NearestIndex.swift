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
    /// Empty when built from parallel arrays: answers then read the tree's unit vectors.
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

    /// Builds the index of `count` points, the coordinate of each read from `coordinate` (by input
    /// position), with parallel arrays whose owners are already numbered (`keyIds`, -1 for none),
    /// keeping no table of key strings: ask with ``nearest(to:k:excludingKeyId:)``. `updatedAt` is
    /// in seconds since the reference date. Entries whose coordinate is not valid are left out.
    ///
    /// Built this way the index keeps no copy of the coordinates, and none is made while it is built
    /// (the caller has them, e.g. the pin store): an answer's coordinate is read back from its unit
    /// vector, equal to the input's within 10⁻⁷ degrees (a centimetre, near the poles; far closer
    /// elsewhere). At 100,000 pins that is 1.5 MiB less kept and 1.5 MiB less while building.
    public init(
        count: Int, coordinate: (Int) -> Coordinate, payloads: [Payload], keyIds: [Int32], updatedAt: [Double]
    ) {
        precondition(payloads.count == count && keyIds.count == count && updatedAt.count == count)
        if (0..<count).allSatisfy({ coordinate($0).isValid }) {
            self.init(
                count: count, coordinate: coordinate, keeping: [], payloads: payloads, keyIds: keyIds,
                updatedAt: updatedAt, keyTable: [:])
        } else {
            let valid = (0..<count).filter { coordinate($0).isValid }
            self.init(
                count: valid.count, coordinate: { coordinate(valid[$0]) }, keeping: [],
                payloads: valid.map { payloads[$0] }, keyIds: valid.map { keyIds[$0] },
                updatedAt: valid.map { updatedAt[$0] }, keyTable: [:])
        }
    }

    private init(
        coordinates: [Coordinate], payloads: [Payload], keyIds: [Int32], updatedAt: [Double], keyTable: [String: Int32]
    ) {
        self.init(
            count: coordinates.count, coordinate: { coordinates[$0] }, keeping: coordinates, payloads: payloads,
            keyIds: keyIds, updatedAt: updatedAt, keyTable: keyTable)
    }

    /// `kept`: the coordinates answers give (empty: read back from the unit vectors).
    private init(
        count: Int, coordinate: (Int) -> Coordinate, keeping kept: [Coordinate], payloads: [Payload],
        keyIds: [Int32], updatedAt: [Double], keyTable: [String: Int32]
    ) {
        self.tree = PointTree(
            count: count, coordinate: coordinate, keyIds: keyIds, recency: updatedAt,
            buildTree: count >= Self.bruteForceLimit)
        self.payloads = payloads
        self.coordinates = kept
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
                payload: payloads[input],
                coordinate: coordinates.isEmpty ? tree.coordinate(at: Int(item.position)) : coordinates[input],
                distanceKilometres: GreatCircle.earthRadiusKilometres * GreatCircle.centralAngle(chord: chord))
        }
    }
}

/// Unit vectors with their owners and recency, searched for the k nearest (non-generic, so the
/// hot loop is compiled for concrete types). Either one leaf (a linear scan) or a k-d tree.
///
/// Per point: its unit vector as three `Double`s side by side (24 bytes; a `SIMD3<Double>` takes
/// 32), owner (4), recency (8) and input position (4); per node 24 bytes, about one node for every
/// five points.
struct PointTree: Sendable {
    struct Node: Sendable {
        var split: Double
        /// 0, 1 or 2 for an inner node; -1 for a leaf.
        var dimension: Int32
        var lower: Int32
        var upper: Int32
        /// Index of the right child (the left child follows its parent directly).
        var right: Int32
    }

    static let leafSize = 12

    // Indexed by tree position (points are reordered while building); `xyz` holds x, y, z of each.
    private let xyz: [Double]
    private let keyIds: [Int32]
    private let recency: [Double]
    private let originalIndex: [Int32]
    private let nodes: [Node]

    /// The tree of `count` points, `coordinate(i)` the coordinate of input position `i`. The arrays
    /// are taken over (the tree reorders them in place, without a copy).
    init(
        count: Int, coordinate: (Int) -> Coordinate, keyIds: consuming [Int32], recency: consuming [Double],
        buildTree: Bool
    ) {
        var xyz: [Double] = []
        xyz.reserveCapacity(3 * count)
        for position in 0..<count {
            let vector = GreatCircle.unitVector(coordinate(position))
            xyz.append(vector.x)
            xyz.append(vector.y)
            xyz.append(vector.z)
        }
        // Each array moves into the builder, which then sorts it in place (a copy left behind would
        // make the first swap copy the whole array).
        var builder = TreeBuilder(
            xyz: consume xyz, keyIds: consume keyIds, recency: consume recency,
            originalIndex: Array(0..<Int32(count)), leafSize: Self.leafSize)
        if buildTree && count > Self.leafSize {
            // A leaf holds more than half of leafSize points, so there are fewer than 4n / leafSize nodes.
            builder.nodes.reserveCapacity(4 * count / Self.leafSize + 1)
            builder.build(lower: 0, upper: count)
        } else {
            builder.nodes = [Node(split: 0, dimension: -1, lower: 0, upper: Int32(count), right: -1)]
        }
        self.xyz = builder.xyz
        self.keyIds = builder.keyIds
        self.recency = builder.recency
        self.originalIndex = builder.originalIndex
        self.nodes = builder.nodes
    }

    /// The latitude and longitude of the point at tree `position`, read back from its unit vector.
    func coordinate(at position: Int) -> Coordinate {
        let (x, y, z) = (xyz[3 * position], xyz[3 * position + 1], xyz[3 * position + 2])
        return Coordinate(
            latitude: asin(max(-1, min(1, z))) * 180 / .pi, longitude: atan2(y, x) * 180 / .pi)
    }

    /// The best `k` candidates for `query`, best first, skipping points owned by `excluded`.
    func nearest(to query: SIMD3<Double>, k: Int, excluded: Int32) -> [Candidate] {
        var best = BestList(capacity: k)
        xyz.withUnsafeBufferPointer { xyz in
            keyIds.withUnsafeBufferPointer { keyIds in
                recency.withUnsafeBufferPointer { recency in
                    originalIndex.withUnsafeBufferPointer { originalIndex in
                        nodes.withUnsafeBufferPointer { nodes in
                            let search = Search(
                                xyz: xyz, keyIds: keyIds, recency: recency,
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
        let xyz: UnsafeBufferPointer<Double>
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
                    let dx = xyz[3 * position] - query.x
                    let dy = xyz[3 * position + 1] - query.y
                    let dz = xyz[3 * position + 2] - query.z
                    let squared = dx * dx + dy * dy + dz * dz
                    if best.isFull && squared > best.worstSquaredChord { continue }
                    best.consider(
                        Candidate(
                            squaredChord: squared, recency: recency[position], index: originalIndex[position],
                            position: Int32(position)))
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
        /// Its position in the tree.
        var position: Int32

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
    var xyz: [Double]
    var keyIds: [Int32]
    var recency: [Double]
    var originalIndex: [Int32]
    let leafSize: Int
    var nodes: [PointTree.Node] = []

    mutating func build(lower: Int, upper: Int) {
        let nodeIndex = nodes.count
        nodes.append(PointTree.Node(split: 0, dimension: -1, lower: Int32(lower), upper: Int32(upper), right: -1))
        guard upper - lower > leafSize else { return }
        var minimum = SIMD3<Double>(repeating: .infinity)
        var maximum = SIMD3<Double>(repeating: -.infinity)
        for position in lower..<upper {
            let point = SIMD3(xyz[3 * position], xyz[3 * position + 1], xyz[3 * position + 2])
            minimum = pointwiseMin(minimum, point)
            maximum = pointwiseMax(maximum, point)
        }
        let spread = maximum - minimum
        var dimension = 0
        if spread[1] > spread[dimension] { dimension = 1 }
        if spread[2] > spread[dimension] { dimension = 2 }
        let middle = (lower + upper) / 2
        select(middle, lower: lower, upper: upper, dimension: dimension)
        nodes[nodeIndex].dimension = Int32(dimension)
        nodes[nodeIndex].split = xyz[3 * middle + dimension]
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
            let pivot = xyz[3 * pivotPosition + dimension]
            var i = low
            var j = high
            while i <= j {
                while xyz[3 * i + dimension] < pivot { i += 1 }
                while xyz[3 * j + dimension] > pivot { j -= 1 }
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
        xyz.swapAt(3 * i, 3 * j)
        xyz.swapAt(3 * i + 1, 3 * j + 1)
        xyz.swapAt(3 * i + 2, 3 * j + 2)
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
