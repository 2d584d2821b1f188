import ClassKit
import Foundation
import NIOCore
import OnTheMapService

/// Writes the map's JSON straight from the pin store into a buffer: the text `JSONEncoder` gives
/// with sorted keys, ISO 8601 dates in UTC and `/` unescaped, with `<`, `>` and `&` written as
/// `\u003c`, `\u003e`, `\u0026` so it stays inert even if something treats it as HTML.
///
/// A class of 100,000 pins is 22 MB of JSON. Through `JSONEncoder` (its tree of the whole document,
/// then three passes of replacements) a fresh page's load took 3.3 s and left the bot 200 MiB
/// larger; here the text is read from the store's bytes and sent in pieces (``MapDocumentWriter``),
/// so no more than a piece is held (BENCHMARKS.md, class size).
struct MapJSONWriter: Sendable {
    private(set) var buffer: ByteBuffer

    init(capacity: Int) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { _ = buffer.writeBytes($0) }
    }

    mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { string($0) }
    }

    /// A JSON string of UTF-8 `bytes`.
    mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) {
        buffer.writeInteger(UInt8(ascii: "\""))
        if bytes.allSatisfy({ !Self.needsEscape($0) }) {
            buffer.writeBytes(bytes)
        } else {
            for byte in bytes { escaped(byte) }
        }
        buffer.writeInteger(UInt8(ascii: "\""))
    }

    /// What was written so far, leaving the writer empty.
    mutating func take() -> ByteBuffer {
        let written = buffer
        buffer = ByteBufferAllocator().buffer(capacity: written.capacity)
        return written
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

    /// The pin in `slot` of `pins` as the page shows it (``MapLocationsDocument/Pin``: where it
    /// shows at `pins.now`, its trip's place while one lasts), keys in sorted order; adds what the
    /// document's version covers to `version`.
    mutating func pin(_ slot: Int, of pins: MapPinFeed.Pins, version: inout MapVersion) {
        let store = pins.store
        let trip = pins.trips[Int32(slot)]
        let coordinate = trip?.trip.coordinate ?? store.coordinate(at: slot)
        let updatedAt = store.updatedAt(at: slot)
        let link = store.string(.mediaURL, at: slot)
        raw("{\"id\":")
        store.withUTF8(.objectId, at: slot) {
            string($0)
            version.add($0)
        }
        version.add("@\(Int64((updatedAt.timeIntervalSince1970 * 1000).rounded()))|")
        raw(",\"latitude\":")
        number(coordinate.latitude)
        raw(",\"link\":")
        string(link)
        raw(",\"linkOpens\":")
        bool(MapLocationsDocument.isWebLink(link))
        raw(",\"longitude\":")
        number(coordinate.longitude)
        raw(",\"name\":")
        fullName(slot, of: store, version: &version)
        raw(",\"place\":")
        version.add("|")
        if let trip {
            string(trip.trip.mapString)
            version.add(trip.trip.mapString)
        } else {
            store.withUTF8(.mapString, at: slot) {
                string($0)
                version.add($0)
            }
        }
        if let zone = trip.map({ MapPinZones.text(of: $0.zone) }) ?? pins.zones.text(of: slot) {
            raw(",\"timeZone\":")
            string(zone)
            version.add("|\(zone)")
        }
        if let trip {
            raw(",\"until\":")
            string(trip.lastDay.isoText)
            version.add("|until \(trip.lastDay.isoText)")
        }
        raw(",\"updatedAt\":")
        date(updatedAt)
        raw("}")
        version.add("|\(link)|\(coordinate.latitude),\(coordinate.longitude)\n")
    }

    /// ``StudentLocation/fullName`` of the pin in `slot`: straight from the bytes when both names
    /// are plain ASCII with nothing to trim, else through the strings.
    private mutating func fullName(_ slot: Int, of store: PinStore, version: inout MapVersion) {
        let written = store.withUTF8(.firstName, at: slot) { first in
            store.withUTF8(.lastName, at: slot) { last in
                guard Self.isPlainName(first, last) else { return false }
                buffer.writeInteger(UInt8(ascii: "\""))
                for byte in first { escaped(byte) }
                buffer.writeInteger(UInt8(ascii: " "))
                for byte in last { escaped(byte) }
                buffer.writeInteger(UInt8(ascii: "\""))
                version.add(first)
                version.add(" ")
                version.add(last)
                return true
            }
        }
        if !written {
            let name = StudentLocation.fullName(
                first: store.string(.firstName, at: slot), last: store.string(.lastName, at: slot))
            string(name)
            version.add(name)
        }
    }

    /// Both names non-empty, plain ASCII, with no space or tab to trim at either end of the whole.
    private static func isPlainName(_ first: UnsafeBufferPointer<UInt8>, _ last: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let head = first.first, let tail = last.last else { return false }
        return head != 0x20 && head != 0x09 && tail != 0x20 && tail != 0x09 && first.allSatisfy { $0 < 0x80 }
            && last.allSatisfy { $0 < 0x80 }
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "<")
            || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "&")
    }

    private mutating func escaped(_ byte: UInt8) {
        switch byte {
        case _ where !Self.needsEscape(byte): buffer.writeInteger(byte)
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

/// The document's version: a fingerprint (FNV-1a, 64 bit) of every pin's id, update time and
/// content, so that a page redraws only when a pin changed.
struct MapVersion: Sendable {
    private var hash: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
    }

    mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { add($0) }
    }

    var text: String { String(hash, radix: 16) }
}
