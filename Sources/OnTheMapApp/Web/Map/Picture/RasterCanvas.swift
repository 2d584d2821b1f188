import Foundation

/// An RGB picture in memory (`width`·`height`·3 bytes) and what the map's picture is drawn with:
/// polygons filled scanline by scanline (nonzero rule, as SVG fills the page's basemap), lines,
/// discs and capsules with soft edges, and text in ``PictureFont``.
struct RasterCanvas: Sendable {
    struct Colour: Sendable, Equatable {
        var red: UInt8
        var green: UInt8
        var blue: UInt8

        /// `0xRRGGBB`.
        init(_ hex: UInt32) {
            red = UInt8(hex >> 16 & 0xFF)
            green = UInt8(hex >> 8 & 0xFF)
            blue = UInt8(hex & 0xFF)
        }

        init(red: UInt8, green: UInt8, blue: UInt8) {
            self.red = red
            self.green = green
            self.blue = blue
        }

        /// `self` over `other` at `amount` (0: `other`, 1: `self`).
        func mixed(over other: Colour, amount: Double) -> Colour {
            func channel(_ top: UInt8, _ bottom: UInt8) -> UInt8 {
                UInt8((Double(top) * amount + Double(bottom) * (1 - amount)).rounded())
            }
            return Colour(
                red: channel(red, other.red), green: channel(green, other.green), blue: channel(blue, other.blue))
        }
    }

    /// A point in pixels: (0, 0) is the top left corner of the top left pixel, whose centre is (0.5, 0.5).
    typealias Point = BasemapOutline.Point

    let width: Int
    let height: Int
    private(set) var pixels: [UInt8]

    init(width: Int, height: Int, background: Colour) {
        self.width = width
        self.height = height
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for index in stride(from: 0, to: pixels.count, by: 3) {
            pixels[index] = background.red
            pixels[index + 1] = background.green
            pixels[index + 2] = background.blue
        }
        self.pixels = pixels
    }

    func colour(x: Int, y: Int) -> Colour {
        let index = (y * width + x) * 3
        return Colour(red: pixels[index], green: pixels[index + 1], blue: pixels[index + 2])
    }

    /// Paints pixel `x`, `y` with `colour` at `alpha` (0…1) over what is there; outside: nothing.
    mutating func blend(x: Int, y: Int, _ colour: Colour, alpha: Double) {
        guard x >= 0, y >= 0, x < width, y < height, alpha > 0 else { return }
        let index = (y * width + x) * 3
        if alpha >= 1 {
            pixels[index] = colour.red
            pixels[index + 1] = colour.green
            pixels[index + 2] = colour.blue
            return
        }
        let below = Colour(red: pixels[index], green: pixels[index + 1], blue: pixels[index + 2])
        let mixed = colour.mixed(over: below, amount: alpha)
        pixels[index] = mixed.red
        pixels[index + 1] = mixed.green
        pixels[index + 2] = mixed.blue
    }

    mutating func fillRectangle(x: Int, y: Int, width: Int, height: Int, _ colour: Colour, alpha: Double = 1) {
        for row in max(0, y)..<min(self.height, y + height) {
            for column in max(0, x)..<min(self.width, x + width) {
                blend(x: column, y: row, colour, alpha: alpha)
            }
        }
    }

    /// Fills the inside of `rings` (pixel coordinates) by the nonzero rule: each pixel whose
    /// centre is inside. One pass of rows over an active edge list.
    mutating func fillPolygons(_ rings: [[Point]], _ colour: Colour) {
        struct Edge {
            var top: Double
            var bottom: Double
            var xAtTop: Double
            var slope: Double
            var winding: Int
        }
        var edges: [Edge] = []
        for ring in rings where ring.count >= 3 {
            for index in ring.indices {
                let a = ring[index]
                let b = ring[(index + 1) % ring.count]
                guard a.y != b.y else { continue }
                let (upper, lower) = a.y < b.y ? (a, b) : (b, a)
                edges.append(
                    Edge(
                        top: upper.y, bottom: lower.y, xAtTop: upper.x,
                        slope: (lower.x - upper.x) / (lower.y - upper.y),
                        winding: b.y > a.y ? 1 : -1))
            }
        }
        edges.sort { $0.top < $1.top }
        var next = 0
        var active: [Int] = []
        var crossings: [(x: Double, winding: Int)] = []
        for row in 0..<height {
            let centre = Double(row) + 0.5
            while next < edges.count, edges[next].top <= centre {
                active.append(next)
                next += 1
            }
            active.removeAll { edges[$0].bottom <= centre }
            crossings.removeAll(keepingCapacity: true)
            for index in active where edges[index].top <= centre {
                let edge = edges[index]
                crossings.append((edge.xAtTop + (centre - edge.top) * edge.slope, edge.winding))
            }
            guard crossings.count >= 2 else { continue }
            crossings.sort { $0.x < $1.x }
            var winding = 0
            var spanStart = 0.0
            for crossing in crossings {
                let before = winding
                winding += crossing.winding
                if before == 0 && winding != 0 {
                    spanStart = crossing.x
                } else if before != 0 && winding == 0 {
                    // Pixels whose centre lies in [spanStart, x).
                    let first = max(0, Int((spanStart - 0.5).rounded(.up)))
                    let last = min(width - 1, Int((crossing.x - 0.5).rounded(.up)) - 1)
                    if first <= last {
                        var index = (row * width + first) * 3
                        for _ in first...last {
                            pixels[index] = colour.red
                            pixels[index + 1] = colour.green
                            pixels[index + 2] = colour.blue
                            index += 3
                        }
                    }
                }
            }
        }
    }

    /// A thin line from `a` to `b` (pixel coordinates), `alpha` strong, spread over the pixels it
    /// passes between (soft edges without a wide pen).
    mutating func line(from a: Point, to b: Point, _ colour: Colour, alpha: Double) {
        let steps = max(1, Int(max(abs(b.x - a.x), abs(b.y - a.y)).rounded(.up)))
        for step in 0...steps {
            let t = Double(step) / Double(steps)
            let x = a.x + (b.x - a.x) * t - 0.5
            let y = a.y + (b.y - a.y) * t - 0.5
            let column = Int(x.rounded(.down))
            let row = Int(y.rounded(.down))
            let fx = x - Double(column)
            let fy = y - Double(row)
            // The step's last point is the next step's first: weigh both ends half.
            let weight = step == 0 || step == steps ? alpha / 2 : alpha
            blend(x: column, y: row, colour, alpha: weight * (1 - fx) * (1 - fy))
            blend(x: column + 1, y: row, colour, alpha: weight * fx * (1 - fy))
            blend(x: column, y: row + 1, colour, alpha: weight * (1 - fx) * fy)
            blend(x: column + 1, y: row + 1, colour, alpha: weight * fx * fy)
        }
    }

    /// A shape given by its distance from a pixel's centre: filled with `fill` where the distance
    /// is below `radius − stroke/2`, `strokeColour` out to `radius + stroke/2`, the whole at
    /// `opacity`, with edges a pixel soft. `distance` is asked only inside `box`.
    mutating func shape(
        box: (minX: Double, minY: Double, maxX: Double, maxY: Double), radius: Double, fill: Colour, stroke: Double,
        strokeColour: Colour, opacity: Double, distance: (Double, Double) -> Double
    ) {
        let outer = radius + stroke / 2
        let inner = radius - stroke / 2
        let firstRow = max(0, Int((box.minY - outer - 1).rounded(.down)))
        let lastRow = min(height - 1, Int((box.maxY + outer + 1).rounded(.up)))
        let firstColumn = max(0, Int((box.minX - outer - 1).rounded(.down)))
        let lastColumn = min(width - 1, Int((box.maxX + outer + 1).rounded(.up)))
        guard firstRow <= lastRow, firstColumn <= lastColumn else { return }
        for row in firstRow...lastRow {
            for column in firstColumn...lastColumn {
                let d = distance(Double(column) + 0.5, Double(row) + 0.5)
                let outside = min(1, max(0, outer + 0.5 - d))
                guard outside > 0 else { continue }
                let inside = min(1, max(0, inner + 0.5 - d))
                blend(x: column, y: row, fill.mixed(over: strokeColour, amount: inside), alpha: outside * opacity)
            }
        }
    }

    /// A disc of `radius` around `centre` with a ring of `stroke` pixels on its edge.
    mutating func disc(
        at centre: Point, radius: Double, fill: Colour, stroke: Double = 0, strokeColour: Colour? = nil,
        opacity: Double = 1
    ) {
        shape(
            box: (centre.x, centre.y, centre.x, centre.y), radius: radius, fill: fill, stroke: stroke,
            strokeColour: strokeColour ?? fill, opacity: opacity
        ) { x, y in
            ((x - centre.x) * (x - centre.x) + (y - centre.y) * (y - centre.y)).squareRoot()
        }
    }

    /// A capsule: every point within `radius` of the segment from `left` to `right` (one row).
    mutating func capsule(
        left: Double, right: Double, y centreY: Double, radius: Double, fill: Colour, stroke: Double,
        strokeColour: Colour, opacity: Double
    ) {
        shape(
            box: (left, centreY, right, centreY), radius: radius, fill: fill, stroke: stroke,
            strokeColour: strokeColour, opacity: opacity
        ) { x, y in
            let nearest = min(max(x, left), right)
            return ((x - nearest) * (x - nearest) + (y - centreY) * (y - centreY)).squareRoot()
        }
    }

    /// `text` in ``PictureFont`` at `scale` pixels a cell, its top left corner at `x`, `y`.
    mutating func text(_ text: String, x: Int, y: Int, scale: Int, _ colour: Colour) {
        var left = x
        for character in text {
            guard let rows = PictureFont.glyph(character) else { continue }
            for (rowIndex, bits) in rows.enumerated() {
                for column in 0..<PictureFont.glyphWidth where bits & (1 << (PictureFont.glyphWidth - 1 - column)) != 0
                {
                    fillRectangle(
                        x: left + column * scale, y: y + rowIndex * scale, width: scale, height: scale, colour)
                }
            }
            left += PictureFont.advance(character) * scale
        }
    }
}
