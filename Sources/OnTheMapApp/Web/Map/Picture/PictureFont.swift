/// The picture's bitmap font: 5 × 7 cells a glyph, drawn at a whole-pixel scale. It holds what the
/// picture writes, and only that: digits, the count abbreviations (`.`, `k`, `M`), the product's
/// name ("ON THE MAP", never translated) and spaces. Words in a language stay out of the picture:
/// they belong to the page, which speaks the reader's language.
enum PictureFont {
    static let glyphWidth = 5
    static let glyphHeight = 7

    /// Rows from the top, the leftmost cell in the highest of the five bits.
    static func glyph(_ character: Character) -> [UInt8]? {
        switch character {
        case "0": [0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110]
        case "1": [0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110]
        case "2": [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111]
        case "3": [0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110]
        case "4": [0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010]
        case "5": [0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110]
        case "6": [0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110]
        case "7": [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000]
        case "8": [0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110]
        case "9": [0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100]
        case ".": [0, 0, 0, 0, 0, 0b11000, 0b11000]
        case "k": [0b10000, 0b10000, 0b10010, 0b10100, 0b11000, 0b10100, 0b10010]
        case "M": [0b10001, 0b11011, 0b10101, 0b10101, 0b10001, 0b10001, 0b10001]
        case "O": [0b01110, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110]
        case "N": [0b10001, 0b10001, 0b11001, 0b10101, 0b10011, 0b10001, 0b10001]
        case "T": [0b11111, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100]
        case "H": [0b10001, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001]
        case "E": [0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b11111]
        case "A": [0b01110, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001]
        case "P": [0b11110, 0b10001, 0b10001, 0b11110, 0b10000, 0b10000, 0b10000]
        case " ", "\u{2009}": [0, 0, 0, 0, 0, 0, 0]
        default: nil
        }
    }

    /// Cells from a glyph's left edge to the next one's (the glyph and a one-cell gap).
    static func advance(_ character: Character) -> Int {
        switch character {
        case ".": 3
        case " ": 4
        case "\u{2009}": 2
        default: glyphWidth + 1
        }
    }

    /// Width in cells of `text` (no gap after its last glyph).
    static func width(_ text: String) -> Int {
        max(0, text.reduce(0) { $0 + advance($1) } - 1)
    }

    /// A count as a cluster shows it, never more than it is: exact below 1,000, then rounded down
    /// to thousands ("1.2k" below 10,000, "12k", "345k") and millions ("1.2M", "12M").
    static func abbreviated(_ count: Int) -> String {
        func shortened(_ value: Int, unit: Int, suffix: String) -> String {
            if value < 10 * unit {
                let tenths = value / (unit / 10)
                return tenths % 10 == 0 ? "\(tenths / 10)\(suffix)" : "\(tenths / 10).\(tenths % 10)\(suffix)"
            }
            return "\(value / unit)\(suffix)"
        }
        switch count {
        case ..<1_000: return "\(max(0, count))"
        case ..<1_000_000: return shortened(count, unit: 1_000, suffix: "k")
        default: return shortened(count, unit: 1_000_000, suffix: "M")
        }
    }

    /// A total written out whole, its thousands set apart by thin spaces ("12 345"): read the
    /// same in every language.
    static func grouped(_ count: Int) -> String {
        var digits = Array(String(max(0, count)))
        var out: [Character] = []
        while digits.count > 3 {
            out.insert(contentsOf: ["\u{2009}"] + digits.suffix(3), at: 0)
            digits.removeLast(3)
        }
        out.insert(contentsOf: digits, at: 0)
        return String(out)
    }
}
