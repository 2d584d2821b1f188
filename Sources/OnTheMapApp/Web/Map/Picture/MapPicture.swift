import ClassKit
import Foundation
import OnTheMapService

/// The class map as one picture (`/map.png`, the picture a chat client's link preview shows):
/// 1200 × 630 pixels (Open Graph's recommended size), drawn in Swift from what the page draws.
///
/// It is the page's own first view of the offline map in a 1200 × 630 window: the basemap's
/// equirectangular box (`x = (lon + 180) · 10`, `y = (90 − lat) · 10`, 3600 × 1800 units) scaled
/// to the window's width and centred (app.js's `minScale` and `clampView`), its countries filled
/// with the page's colours and outlined; then what `/api/map/view.json` gives the page at that
/// view's zoom (app.js's `currentZoom`): the counts of region- and country-level places, the pins
/// sent one by one, and the clusters with their counts, each drawn as app.css draws it. No name is
/// ever drawn. A caption in the corner carries the product's name and the class's total; on a
/// class-only map without a signed-in viewer it carries a padlock instead (no pin, no total).
enum MapPicture {
    static let width = 1200
    static let height = 630
    /// The basemap's box in its own units (app.js's `plate`).
    static let basemapWidth = 3600.0
    static let basemapHeight = 1800.0
    /// Map units a degree (app.js's `UNIT`).
    static let unitsPerDegree = 10.0
    /// Pixels a map unit: the whole world across the window (app.js's `minScale`).
    static let scale = min(Double(width) / basemapWidth, Double(height) / basemapHeight)
    /// Where the world's box starts in the window: centred (app.js's `clampView`).
    static let offsetX = (Double(width) - basemapWidth * scale) / 2
    static let offsetY = (Double(height) - basemapHeight * scale) / 2
    /// The zoom the clusters are asked for (app.js's `currentZoom`: the world is 256·2^zoom pixels wide).
    static let zoom = max(
        MapViewIndex.zooms.lowerBound,
        min(MapViewIndex.zooms.upperBound, Int((log2(basemapWidth * scale / 256)).rounded(.down))))

    /// The page's colours (app.css).
    enum Palette {
        static let sea = RasterCanvas.Colour(0xCFE6F3)
        static let land = RasterCanvas.Colour(0xF3EFE4)
        static let coast = RasterCanvas.Colour(0x9AA6A0)
        static let cluster = RasterCanvas.Colour(0x02739A)
        static let white = RasterCanvas.Colour(0xFFFFFF)
        static let pinHead = RasterCanvas.Colour(0xE2463C)
        static let pinStem = RasterCanvas.Colour(0x7A1F19)
        static let area = RasterCanvas.Colour(0xFFF8E1)
        static let areaEdge = RasterCanvas.Colour(0x8A5A00)
        static let areaText = RasterCanvas.Colour(0x4A3200)
        static let caption = RasterCanvas.Colour(0x1D2733)
    }

    /// What is drawn over the basemap.
    enum Content: Sendable {
        /// The class: what the page's first view shows, and the total.
        case clusters(MapViewIndex, MapPinFeed.Pins)
        /// A class-only map seen without signing in: no pin and no total, a padlock in the caption.
        case signedOut
    }

    /// Where `coordinate` is in the picture, in pixels (app.js's `project` then `view`).
    static func position(of coordinate: Coordinate) -> RasterCanvas.Point {
        RasterCanvas.Point(
            x: (coordinate.longitude + 180) * unitsPerDegree * scale + offsetX,
            y: (90 - coordinate.latitude) * unitsPerDegree * scale + offsetY)
    }

    /// The outline's rings in picture pixels.
    static func rings(of outline: BasemapOutline) -> [[RasterCanvas.Point]] {
        let sx = outline.width > 0 ? scale * basemapWidth / outline.width : scale
        let sy = outline.height > 0 ? scale * basemapHeight / outline.height : scale
        return outline.rings.map { ring in
            ring.map { RasterCanvas.Point(x: $0.x * sx + offsetX, y: $0.y * sy + offsetY) }
        }
    }

    /// The picture of `content` over `outline`, as pixels.
    static func draw(_ content: Content, outline: BasemapOutline) -> RasterCanvas {
        var canvas = RasterCanvas(width: width, height: height, background: Palette.sea)
        let rings = rings(of: outline)
        canvas.fillPolygons(rings, Palette.land)
        for ring in rings {
            for index in ring.indices {
                canvas.line(from: ring[index], to: ring[(index + 1) % ring.count], Palette.coast, alpha: 0.8)
            }
        }
        switch content {
        case .clusters(let index, let pins):
            drawClass(index, pins: pins, on: &canvas)
            drawCaption(total: index.total, on: &canvas)
        case .signedOut:
            drawCaption(total: nil, on: &canvas)
        }
        return canvas
    }

    /// The PNG file of `content` over `outline`.
    static func png(_ content: Content, outline: BasemapOutline) -> [UInt8]? {
        PNGEncoder.encode(rgb: draw(content, outline: outline).pixels, width: width, height: height)
    }

    /// Places, single pins and clusters, in the page's order (app.js's `draw`).
    private static func drawClass(_ index: MapViewIndex, pins: MapPinFeed.Pins, on canvas: inout RasterCanvas) {
        guard let world = Viewport(west: -180, south: -90, east: 180, north: 90),
            let view = index.view(world, zoom: zoom, of: pins)
        else { return }
        for area in view.areas {
            let spot = position(of: area.coordinate)
            let label = PictureFont.abbreviated(area.slots.count)
            let textWidth = Double(PictureFont.width(label) * 2)
            let half = max(9, textWidth / 2 + 4)
            canvas.capsule(
                left: spot.x - half, right: spot.x + half, y: spot.y, radius: 11, fill: Palette.area, stroke: 1.5,
                strokeColour: Palette.areaEdge, opacity: 0.95)
            write(label, centredAt: spot, scale: 2, Palette.areaText, on: &canvas)
        }
        for slot in view.singles {
            let spot = position(of: pins.trips[slot]?.trip.coordinate ?? pins.store.coordinate(at: Int(slot)))
            canvas.fillRectangle(
                x: Int(spot.x.rounded(.down)) - 1, y: Int(spot.y.rounded()) - 10, width: 2, height: 10, Palette.pinStem)
            canvas.disc(
                at: .init(x: spot.x, y: spot.y - 14), radius: 6, fill: Palette.pinHead, stroke: 1.5,
                strokeColour: Palette.white)
        }
        for cell in view.cells {
            let spot = position(of: cell.coordinate)
            let label = PictureFont.abbreviated(cell.count)
            let pageRadius = 11 + min(12, (log2(Double(cell.count)) * 1.5).rounded())
            let radius = max(pageRadius, Double(PictureFont.width(label) * 2) / 2 + 5)
            canvas.disc(
                at: spot, radius: radius, fill: Palette.cluster, stroke: 2, strokeColour: Palette.white, opacity: 0.92)
            write(label, centredAt: spot, scale: 2, Palette.white, on: &canvas)
        }
    }

    private static func write(
        _ text: String, centredAt spot: RasterCanvas.Point, scale: Int, _ colour: RasterCanvas.Colour,
        on canvas: inout RasterCanvas
    ) {
        let left = Int((spot.x - Double(PictureFont.width(text) * scale) / 2).rounded())
        let top = Int((spot.y - Double(PictureFont.glyphHeight * scale) / 2).rounded())
        canvas.text(text, x: left, y: top, scale: scale, colour)
    }

    /// The caption's box: its left, top, height (its width depends on what it says).
    static let captionLeft = 16
    static let captionHeight = 40
    static var captionTop: Int { height - 16 - captionHeight }

    /// "ON THE MAP" and a pin with the class's total, or a padlock when the pins are not shown.
    private static func drawCaption(total: Int?, on canvas: inout RasterCanvas) {
        let name = "ON THE MAP"
        let scale = 3
        let padding = 16
        let gap = 20
        let nameWidth = PictureFont.width(name) * scale
        let totalText = total.map(PictureFont.grouped)
        let iconWidth = 16
        let trailing = iconWidth + 8 + (totalText.map { PictureFont.width($0) * scale } ?? 0)
        let boxWidth = padding + nameWidth + gap + trailing + padding
        let radius = Double(captionHeight) / 2
        let centreY = Double(captionTop) + radius
        canvas.capsule(
            left: Double(captionLeft) + radius, right: Double(captionLeft + boxWidth) - radius, y: centreY,
            radius: radius, fill: Palette.caption, stroke: 0, strokeColour: Palette.caption, opacity: 0.9)
        let textTop = captionTop + (captionHeight - PictureFont.glyphHeight * scale) / 2
        canvas.text(name, x: captionLeft + padding, y: textTop, scale: scale, Palette.white)
        let iconLeft = Double(captionLeft + padding + nameWidth + gap)
        if let totalText {
            // A pin as the page draws one, then the total.
            canvas.fillRectangle(
                x: Int(iconLeft) + 7, y: Int(centreY) + 1, width: 2, height: 9, Palette.white)
            canvas.disc(
                at: .init(x: iconLeft + 8, y: centreY - 4), radius: 6, fill: Palette.pinHead, stroke: 1.5,
                strokeColour: Palette.white)
            canvas.text(totalText, x: Int(iconLeft) + iconWidth + 8, y: textTop, scale: scale, Palette.white)
        } else {
            // A padlock: the class's pins are for those signed in.
            canvas.capsule(
                left: iconLeft + 8, right: iconLeft + 8, y: centreY - 5, radius: 5, fill: Palette.caption,
                stroke: 2.5, strokeColour: Palette.white, opacity: 1)
            canvas.fillRectangle(x: Int(iconLeft), y: Int(centreY) - 3, width: 16, height: 13, Palette.white)
            canvas.fillRectangle(x: Int(iconLeft) + 7, y: Int(centreY) + 1, width: 2, height: 5, Palette.caption)
        }
    }
}
