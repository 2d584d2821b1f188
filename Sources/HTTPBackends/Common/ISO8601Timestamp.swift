import Foundation
import OnTheMapService

/// Reads the ISO-8601 UTC timestamps of the On The Map API: `2015-02-25T01:10:38.103Z`,
/// `2015-05-10T16:48:30.760460Z`, `2015-02-25T01:10:38Z`, or with a `+hh:mm` offset.
enum ISO8601Timestamp {
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0

        func number(digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for offset in 0..<digits {
                let byte = bytes[index + offset]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += digits
            return value
        }
        func expect(_ character: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == character else { return false }
            index += 1
            return true
        }

        guard let year = number(digits: 4), expect(UInt8(ascii: "-")),
            let month = number(digits: 2), expect(UInt8(ascii: "-")),
            let day = number(digits: 2),
            expect(UInt8(ascii: "T")) || expect(UInt8(ascii: "t")) || expect(UInt8(ascii: " ")),
            let hour = number(digits: 2), expect(UInt8(ascii: ":")),
            let minute = number(digits: 2), expect(UInt8(ascii: ":")),
            let second = number(digits: 2)
        else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60 else {
            return nil
        }

        var fraction = 0.0
        if expect(UInt8(ascii: ".")) {
            var numerator = 0
            var denominator = 1
            var digitCount = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                if digitCount < 9 {
                    numerator = numerator * 10 + Int(bytes[index] - 0x30)
                    denominator *= 10
                }
                digitCount += 1
                index += 1
            }
            fraction = Double(numerator) / Double(denominator)
            guard digitCount > 0 else { return nil }
        }

        var offsetSeconds = 0
        if expect(UInt8(ascii: "Z")) || expect(UInt8(ascii: "z")) {
            offsetSeconds = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHours = number(digits: 2) else { return nil }
            _ = expect(UInt8(ascii: ":"))
            guard let offsetMinutes = number(digits: 2) else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else if index != bytes.count {
            return nil
        }
        guard index == bytes.count else { return nil }

        let days = LocalDay(year: year, month: month, day: day).dayNumber
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Formats a date as `2015-02-25T01:10:38.103Z` (UTC, milliseconds).
    static func format(_ date: Date) -> String {
        let totalMilliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let milliseconds = Int(((totalMilliseconds % 1000) + 1000) % 1000)
        let totalSeconds = (totalMilliseconds - Int64(milliseconds)) / 1000
        let secondOfDay = Int(((totalSeconds % 86_400) + 86_400) % 86_400)
        let days = Int((totalSeconds - Int64(secondOfDay)) / 86_400)
        let civil = LocalDay(dayNumber: days)
        let (year, month, day) = (civil.year, civil.month, civil.day)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(milliseconds, 3))Z"
    }
}
