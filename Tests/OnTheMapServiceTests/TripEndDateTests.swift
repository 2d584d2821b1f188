import Foundation
import Localization
import Testing

@testable import OnTheMapService

@Suite("Trip end dates")
struct TripEndDateTests {
    /// Friday 27 Nov 2026, 10:00 in London.
    private let now = Date(timeIntervalSince1970: 1_795_773_600)
    private let london = TimeZone(identifier: "Europe/London")!

    private func lastDay(_ text: String, zone: TimeZone? = nil, now: Date? = nil) throws -> LocalDay {
        try TripEndDateParser.parse(text, now: now ?? self.now, in: zone ?? london).lastDay
    }

    private func refusal(_ text: String, zone: TimeZone? = nil, now: Date? = nil) -> TripEndDateError? {
        do {
            _ = try TripEndDateParser.parse(text, now: now ?? self.now, in: zone ?? london)
            return nil
        } catch {
            return error
        }
    }

    @Test("The fixed instant is Friday 27 Nov 2026, 10:00 in London")
    func fixedInstant() throws {
        #expect(now == (try instant("2026-11-27T10:00:00Z")))
        #expect(LocalClock(timeZone: london, instant: now).weekdayName == "Friday")
    }

    @Test("Every accepted form names the right last day, and the trip ends when that day ends")
    func acceptedForms() throws {
        let christmasEve = LocalDay(year: 2026, month: 12, day: 24)
        for text in [
            "2026-12-24", "24 Dec", "Dec 24", "24 December", "December 24", "24th Dec", "dec 24, 2026",
            "24 Dec 2026", " DEC 24. ",
        ] {
            #expect(try lastDay(text) == christmasEve, "\(text)")
        }
        let trip = try TripEndDateParser.parse("24 Dec", now: now, in: london)
        #expect(trip.endsAt == (try instant("2026-12-25T00:00:00Z")))
        #expect(trip.lastDay.shortText == "24 Dec")

        #expect(try lastDay("today") == LocalDay(year: 2026, month: 11, day: 27))
        #expect(try lastDay("tomorrow") == LocalDay(year: 2026, month: 11, day: 28))
        #expect(try lastDay("in 1 day") == LocalDay(year: 2026, month: 11, day: 28))
        #expect(try lastDay("in 3 days") == LocalDay(year: 2026, month: 11, day: 30))
        #expect(try lastDay("in 2 weeks") == LocalDay(year: 2026, month: 12, day: 11))
        #expect(try lastDay("in 90 days") == LocalDay(year: 2027, month: 2, day: 25))
        // Weekdays: the next one, today excluded (today is a Friday).
        #expect(try lastDay("Sunday") == LocalDay(year: 2026, month: 11, day: 29))
        #expect(try lastDay("next sun") == LocalDay(year: 2026, month: 11, day: 29))
        #expect(try lastDay("saturday") == LocalDay(year: 2026, month: 11, day: 28))
        #expect(try lastDay("Friday") == LocalDay(year: 2026, month: 12, day: 4))
        // Without a year, the nearest: early January is next year's.
        #expect(try lastDay("2 Jan") == LocalDay(year: 2027, month: 1, day: 2))
        #expect(try lastDay("Jan 2nd") == LocalDay(year: 2027, month: 1, day: 2))
    }

    @Test("Today is the trip place's: late evening in Auckland is already tomorrow there")
    func todayIsThePlaces() throws {
        let auckland = try #require(TimeZone(identifier: "Pacific/Auckland"))
        // 10:00Z is 23:00 on 27 Nov in Auckland (UTC+13).
        let trip = try TripEndDateParser.parse("tomorrow", now: now, in: auckland)
        #expect(trip.lastDay == LocalDay(year: 2026, month: 11, day: 28))
        #expect(trip.endsAt == (try instant("2026-11-28T11:00:00Z")))
    }

    @Test("A trip ending on either side of a daylight-saving change ends at that day's local midnight")
    func endsAtLocalMidnightAcrossDaylightSaving() throws {
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        let march = try instant("2027-03-10T15:00:00Z")
        // New York moves to UTC-4 on 14 Mar 2027.
        let beforeChange = try TripEndDateParser.parse("2027-03-13", now: march, in: newYork)
        #expect(beforeChange.endsAt == (try instant("2027-03-14T05:00:00Z")))
        let dayOfChange = try TripEndDateParser.parse("Sunday", now: march, in: newYork)
        #expect(dayOfChange.lastDay == LocalDay(year: 2027, month: 3, day: 14))
        #expect(dayOfChange.endsAt == (try instant("2027-03-15T04:00:00Z")))
    }

    @Test("Every refusal has its own error and a sentence")
    func refusals() throws {
        #expect(refusal("2026-11-20") == .past(LocalDay(year: 2026, month: 11, day: 20)))
        #expect(refusal("20 Nov") == .past(LocalDay(year: 2026, month: 11, day: 20)))
        #expect(refusal("2026-11-20")?.description == "20 Nov 2026 is in the past: a trip must end today or later.")

        // 12:00Z on 27 Nov is already 28 Nov in Auckland, though 27 Nov lasts until 12:00Z on
        // 28 Nov in the last zone (UTC-12).
        let auckland = try #require(TimeZone(identifier: "Pacific/Auckland"))
        let noon = try instant("2026-11-27T12:00:00Z")
        let ended = LocalDay(year: 2026, month: 11, day: 27)
        #expect(
            refusal("2026-11-27", zone: auckland, now: noon)
                == .alreadyEnded(ended, today: LocalDay(year: 2026, month: 11, day: 28)))
        #expect(try lastDay("today", zone: auckland, now: noon) == LocalDay(year: 2026, month: 11, day: 28))
        #expect(
            refusal("27 Nov", zone: auckland, now: noon)?.description
                == "27 Nov has already ended at the trip's place (it is 28 Nov there): "
                + "a trip must end today or later in its own time zone.")
        // A day later it has ended everywhere.
        #expect(refusal("2026-11-27", zone: auckland, now: noon.addingTimeInterval(86_400)) == .past(ended))

        #expect(refusal("2027-03-01") == .tooFarAhead(LocalDay(year: 2027, month: 3, day: 1)))
        #expect(refusal("in 91 days") == .tooFarAhead(LocalDay(year: 2027, month: 2, day: 26)))
        #expect(
            refusal("in 91 days")?.description
                == "26 Feb 2027 is more than 90 days ahead: a trip can last 90 days at most.")

        #expect(refusal("31 Feb") == .noSuchDay(day: 31, month: 2, year: nil))
        #expect(refusal("2026-02-30") == .noSuchDay(day: 30, month: 2, year: 2026))
        #expect(refusal("29 Feb") == .noSuchDay(day: 29, month: 2, year: nil))  // no leap year in 2025–2027
        #expect(refusal("2026-02-30")?.description == "There is no 30 Feb 2026 in the calendar.")
        #expect(refusal("31 Feb")?.description == "There is no 31 Feb in the calendar.")

        for text in [
            "soon", "", "next month", "2026/12/24", "32 Dec", "in -3 days", "in three days", "Dec", "in 2 months",
        ] {
            #expect(refusal(text) == .unreadable(text.trimmingCharacters(in: .whitespaces)), "\(text)")
        }
        #expect(
            refusal("soon")?.description
                == "I can't read \"soon\" as a date: write 2026-12-24, 24 Dec, Dec 24, a weekday (Sunday), "
                + "today, tomorrow or in 3 days.")
    }

    @Test("A reader's own month and weekday names and words for today and tomorrow are read besides English")
    func datesInTheReadersLanguage() throws {
        func day(_ text: String, _ language: Language) throws -> LocalDay {
            try TripEndDateParser.parse(text, now: now, in: london, language: language).lastDay
        }
        let christmasEve = LocalDay(year: 2026, month: 12, day: 24)
        for (text, language) in [
            ("24 dic", Language.spanish), ("24 de diciembre", .spanish), ("24 déc.", .french),
            ("24 decembre", .french), ("24. Dez", .german), ("24. Dezember", .german),
            ("24 de dez.", .brazilianPortuguese),
            ("12月24日", .japanese), ("2026年12月24日", .japanese), ("24 Dec", .japanese),
        ] {
            #expect(try day(text, language) == christmasEve, "\(text)")
        }
        let saturday = LocalDay(year: 2026, month: 11, day: 28)
        #expect(try day("mañana", .spanish) == saturday)
        #expect(try day("manana", .spanish) == saturday)
        #expect(try day("demain", .french) == saturday)
        #expect(try day("morgen", .german) == saturday)
        #expect(try day("amanhã", .brazilianPortuguese) == saturday)
        #expect(try day("明日", .japanese) == saturday)
        #expect(try day("hoy", .spanish) == LocalDay(year: 2026, month: 11, day: 27))
        #expect(try day("domingo", .spanish) == LocalDay(year: 2026, month: 11, day: 29))
        #expect(try day("Sonntag", .german) == LocalDay(year: 2026, month: 11, day: 29))
        // Another language's words are not read: "mañana" is no date for an English reader.
        #expect(throws: TripEndDateError.unreadable("mañana")) {
            try TripEndDateParser.parse("mañana", now: now, in: london)
        }
        #expect(throws: TripEndDateError.noSuchDay(day: 31, month: 2, year: nil)) {
            try TripEndDateParser.parse("31 de febrero", now: now, in: london, language: .spanish)
        }
    }

    @Test("Each refusal is said in the reader's language, with its dates written that language's way")
    func refusalsInTheReadersLanguage() {
        let spanish = Catalogs.bundled.phrasebook(.spanish)
        let japanese = Catalogs.bundled.phrasebook(.japanese)
        let february = TripEndDateError.noSuchDay(day: 31, month: 2, year: nil)
        #expect(february.sentence(in: spanish).contains("31 feb"))
        #expect(february.sentence(in: japanese).contains("2月31日"))
        let ahead = TripEndDateError.tooFarAhead(LocalDay(year: 2027, month: 2, day: 26))
        #expect(ahead.sentence(in: spanish).contains("90"))
        #expect(!ahead.sentence(in: spanish).contains("days"))
        let unreadable = TripEndDateError.unreadable("pronto").sentence(in: spanish)
        #expect(
            unreadable.contains("\"pronto\"") && unreadable.contains("2026-12-24") && unreadable.contains("domingo"))
    }

    @Test("An unreadable date is quoted back without control characters and cut short")
    func unreadableEchoIsSafe() throws {
        let sentence = try #require(refusal("soon\r\nQUIT :bye\u{0}")).description
        #expect(!sentence.contains("\r") && !sentence.contains("\n") && !sentence.contains("\u{0}"))
        #expect(sentence.contains("\"soonQUIT :bye\""))
        let long = try #require(refusal(String(repeating: "x", count: 100))).description
        #expect(long.contains("\"" + String(repeating: "x", count: 40) + "…\""))
    }
}
