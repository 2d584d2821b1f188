import Foundation
import NIOCore
import OnTheMapService

/// Writes the map's JSON straight from the pins into the response's buffer: the text `JSONEncoder`
/// gives with sorted keys, ISO 8601 dates in UTC and `/` unescaped, with `<`, `>` and `&` written as
/// `\u003c`, `\u003e`, `\u0026` so it stays inert even if something treats it as HTML.
///
/// A class of 100,000 pins is 22 MB of JSON. Through `JSONEncoder` (its tree of the whole document,
/// then three passes of replacements) a fresh page's load took 3.3 s and left the bot 200 MiB
/// larger; written here it is one buffer the size of the answer (BENCHMARKS.md, class size).
struct MapJSONWriter {
    private(set) var buffer: ByteBuffer

    init(capacity: Int) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { _ = buffer.writeBytes($0) }
    }

    mutating func string(_ text: String) {
        buffer.writeInteger(UInt8(ascii: "\""))
        if text.utf8.allSatisfy({ !Self.needsEscape($0) }) {
            buffer.writeString(text)
        } else {
            for byte in text.utf8 { escaped(byte) }
        }
        buffer.writeInteger(UInt8(ascii: "\""))
    }

    mutating func integer(_ value: Int) {
        buffer.writeString(String(value))
    }

    /// The shortest text that reads back as `value` (`2` rather than `2.0`, as JSONEncoder writes).
    mutating func number(_ value: Double) {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        buffer.writeString(text)
    }

    mutating func bool(_ value: Bool) {
        value ? raw("true") : raw("false")
    }

    /// `"2026-11-24T14:02:33Z"`: whole seconds in UTC, as `JSONEncoder.DateEncodingStrategy.iso8601`.
    mutating func date(_ date: Date) {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        var days = seconds / 86_400
        var second = seconds % 86_400
        if second < 0 {
            second += 86_400
            days -= 1
        }
        let (year, month, day) = Self.civilDate(daysSince1970: days)
        buffer.writeInteger(UInt8(ascii: "\""))
        digits(Int(year), width: 4)
        buffer.writeInteger(UInt8(ascii: "-"))
        digits(month, width: 2)
        buffer.writeInteger(UInt8(ascii: "-"))
        digits(day, width: 2)
        buffer.writeInteger(UInt8(ascii: "T"))
        digits(Int(second / 3600), width: 2)
        buffer.writeInteger(UInt8(ascii: ":"))
        digits(Int(second / 60 % 60), width: 2)
        buffer.writeInteger(UInt8(ascii: ":"))
        digits(Int(second % 60), width: 2)
        raw("Z\"")
    }

    /// One pin as the page shows it (``MapLocationsDocument/Pin``), keys in sorted order.
    mutating func pin(_ location: StudentLocation) {
        raw("{\"id\":")
        string(location.objectId)
        raw(",\"latitude\":")
        number(location.coordinate.latitude)
        raw(",\"link\":")
        string(location.mediaURL)
        raw(",\"linkOpens\":")
        bool(MapLocationsDocument.isWebLink(location.mediaURL))
        raw(",\"longitude\":")
        number(location.coordinate.longitude)
        raw(",\"name\":")
        string(location.fullName)
        raw(",\"place\":")
        string(location.mapString)
        raw(",\"updatedAt\":")
        date(location.updatedAt)
        raw("}")
    }

    /// The pins with a valid coordinate as a JSON array.
    mutating func pins(_ locations: [StudentLocation]) {
        raw("[")
        var first = true
        for location in locations where location.coordinate.isValid {
            if !first { raw(",") }
            first = false
            pin(location)
        }
        raw("]")
    }

    /// About what one pin takes, to size the buffer once.
    static func capacity(forPins count: Int) -> Int { 256 + count * 240 }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "<")
            || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "&")
    }

    private mutating func escaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): raw("\\\"")
        case UInt8(ascii: "\\"): raw("\\\\")
        case 0x0A: raw("\\n")
        case 0x0D: raw("\\r")
        case 0x09: raw("\\t")
        case 0x08: raw("\\b")
        case 0x0C: raw("\\f")
        case 0..<0x20, UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"):
            raw("\\u00")
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            buffer.writeInteger(hex[Int(byte >> 4)])
            buffer.writeInteger(hex[Int(byte & 0x0F)])
        default: buffer.writeInteger(byte)
        }
    }

    private mutating func digits(_ value: Int, width: Int) {
        let text = String(value)
        for _ in text.count..<width { buffer.writeInteger(UInt8(ascii: "0")) }
        buffer.writeString(text)
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (days of 400-year eras).
    static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int, day: Int) {
        let shifted = days + 719_468  // from 0000-03-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthFromMarch + 2) / 5 + 1)
        let month = Int(monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9)
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
