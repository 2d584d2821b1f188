/// The writing system of place names, as far as spelling-tolerant matching needs it: a completion
/// or a near spelling is only looked for among names written in the query's own script, and only
/// for text that a place name could be (letters of one script, spaces, hyphens, apostrophes and
/// full stops; digits for addresses). `javascript:alert(1)`, `Pаris` with a Cyrillic "а", or an
/// e-mail address get exact matches or nothing.
enum GazetteerScript {
    /// A script: a small number per writing system (Unicode block ranges), or nil for
    /// characters that belong to every script (digits, spaces, combining marks).
    static func script(of scalar: Unicode.Scalar) -> Int? {
        let value = scalar.value
        switch value {
        case 0x30...0x39, 0x20, 0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F:
            return nil
        case 0x41...0x5A, 0x61...0x7A, 0xC0...0x24F, 0x250...0x2AF, 0x1E00...0x1EFF, 0x2C60...0x2C7F, 0xA720...0xA7FF:
            return 1  // Latin
        case 0x0370...0x03FF, 0x1F00...0x1FFF:
            return 2  // Greek
        case 0x0400...0x052F, 0x2DE0...0x2DFF, 0xA640...0xA69F:
            return 3  // Cyrillic
        case 0x0600...0x06FF, 0x0750...0x077F, 0x08A0...0x08FF, 0xFB50...0xFDFF, 0xFE70...0xFEFF:
            return 4  // Arabic
        case 0x1100...0x11FF, 0x3130...0x318F, 0xAC00...0xD7AF:
            return 5  // Hangul
        case 0x3040...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9F:
            return 6  // Hiragana and Katakana
        case 0x2E80...0x2FDF, 0x3005, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x3FFFF:
            return 7  // Han
        default:
            // Every other block is a script of its own (Hebrew, Armenian, Georgian, each Indic
            // script, Thai…): its first code point, offset past the numbers above.
            return 100 + Int(value >> 7)
        }
    }

    /// The one script of `text`'s letters when spelling-tolerant matching may be tried on it:
    /// nil when it mixes scripts, has no letter, or has a character no place name has.
    static func approximableScript<S: StringProtocol>(of text: S) -> Int? {
        var found: Int?
        for scalar in text.unicodeScalars {
            if isPlaceNamePunctuation(scalar) { continue }
            let properties = scalar.properties
            guard
                properties.isAlphabetic || properties.numericType != nil
                    || properties.generalCategory == .nonspacingMark
            else { return nil }
            guard let script = script(of: scalar) else { continue }
            if let found, found != script { return nil }
            found = script
        }
        return found
    }

    /// The one script of a normalised key (UTF-8), or nil when it mixes scripts or has no letter.
    static func script(ofKey bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var found: Int?
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while case .scalarValue(let scalar) = decoder.decode(&iterator) {
            guard let script = script(of: scalar) else { continue }
            if let found, found != script { return nil }
            found = script
        }
        return found
    }

    /// Spaces, hyphens, apostrophes and full stops: what separates the words of a place name.
    private static func isPlaceNamePunctuation(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20, 0x09, 0x2D, 0x2E, 0x27, 0x60, 0xA0, 0xB4, 0x2BC, 0x2BB, 0x2010...0x2015, 0x2018, 0x2019:
            return true
        default:
            return false
        }
    }
}
