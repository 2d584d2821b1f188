import BotKit
import BotTesting
import Foundation
import OnTheMapService
import Testing

/// `!post` step 1 as a new student meets it: near matches are offered, never assumed; namesakes
/// are named; words that are not places are refused with a sentence that helps.
@Suite struct PlaceChoiceTests {
    @Test func aMisspellingIsOfferedAndOnlyAConfirmedChoiceGoesOnToTheLink() async throws {
        let fixture = try await PostTests.loggedInJane()
        #expect(
            await fixture.dm("!post Seatle", as: "jane") == [
                "Did you mean Seattle, Washington, United States? !post yes, or type the place again."
            ])
        // No link is taken before the place is confirmed, and nothing is saved.
        #expect(
            await fixture.dm("!link https://jane.example", as: "jane") == [
                "Did you mean Seattle, Washington, United States? !post yes, or type the place again."
            ])
        #expect(try await fixture.sqlite.recentLocations(limit: 10, skip: 0).isEmpty)
        let confirmed = await fixture.dm("!post yes", as: "jane")
        #expect(confirmed.count == 2)
        #expect(confirmed[0].hasPrefix("Found Seattle, Washington, United States ("))
        #expect(confirmed[1].hasPrefix("Now send your link: !link https://…"))
        let saved = await fixture.dm("!link https://jane.example", as: "jane")
        // The pin shows the place chosen, not the misspelling.
        #expect(
            saved.first?.hasPrefix("You are on the map: Jane Doe — Seattle, Washington, United States (") == true,
            "\(saved)")
    }

    @Test func typingThePlaceAgainOrNoReplacesTheOffer() async throws {
        let fixture = try await PostTests.loggedInJane()
        #expect(await fixture.dm("!post Seatle", as: "jane").first?.hasPrefix("Did you mean Seattle") == true)
        let retyped = await fixture.dm("!post Seattle, WA", as: "jane")
        #expect(retyped.first?.hasPrefix("Found Seattle, Washington, United States (") == true)

        _ = await fixture.dm("!cancel", as: "jane")
        #expect(await fixture.dm("!post Philadelpia", as: "jane").first?.hasPrefix("Did you mean Philadelphia") == true)
        #expect(
            await fixture.dm("!post no", as: "jane") == [
                "OK, no place is chosen; type it again: !post <place>, e.g. !post Lyon, France"
            ])
        #expect(await fixture.dm("!link https://jane.example", as: "jane").first?.hasPrefix("First tell me") == true)
    }

    @Test func severalCloseMatchesAreNumbered() async throws {
        let fixture = try await PostTests.loggedInJane()
        let offer = await fixture.dm("!post San Fran", as: "jane")
        #expect(offer.count == 2, "\(offer)")
        #expect(offer.first?.hasPrefix("Did you mean 1) San Francisco, California, United States, 2) ") == true)
        #expect(offer.last?.hasPrefix("Choose with !post 1, !post 2") == true)
        #expect(offer.last?.hasSuffix(", or type the place again.") == true)
        await fixture.bot.assertError("!post 7", "Choose a number from 1 to …", as: "jane")
        let chosen = await fixture.dm("!post 1", as: "jane")
        #expect(chosen.first?.hasPrefix("Found San Francisco, California, United States (") == true)
    }

    @Test func anExactNameWithNamesakesTakesTheLikeliestAndNamesTheOthers() async throws {
        let fixture = try await PostTests.loggedInJane()
        let paris = await fixture.dm("!post Paris", as: "jane")
        #expect(paris.first?.hasPrefix("Found Paris, Île-de-France, France (48.8530, 2.3490); or Paris, ") == true)
        #expect(paris.first?.contains(": !post 2") == true, "\(paris)")
        let texas = try #require(
            paris.first?.components(separatedBy: "; or ").first { $0.hasPrefix("Paris, Texas") })
        let number = try #require(texas.components(separatedBy: "!post ").last?.prefix(1))
        let switched = await fixture.dm("!post \(number)", as: "jane")
        #expect(switched.first?.hasPrefix("Found Paris, Texas, United States (") == true, "\(switched)")
        #expect(switched.first?.contains("or Paris, Île-de-France, France: !post 1") == true)
        let saved = await fixture.dm("!link https://jane.example", as: "jane")
        #expect(saved.first?.hasPrefix("You are on the map: Jane Doe — Paris, Texas, United States (") == true)
    }

    @Test func wordsThatAreNotPlacesAreRefusedHelpfully() async throws {
        let fixture = try await PostTests.loggedInJane()
        let example = "e.g. !post Lyon, France"
        for (typed, reply) in [
            (
                "online",
                "\"online\" is not a place on the map: it needs a city, region or country. Studying online? Give the city you are in, \(example)"
            ),
            (
                "home office",
                "\"home office\" is not a place on the map: it needs a city, region or country. Studying online? Give the city you are in, \(example)"
            ),
            ("N/A", "\"N/A\" is not a place: the map needs a city, region or country, \(example)"),
            ("the moon", "\"the moon\" is not on this map: it needs a city, region or country on Earth, \(example)"),
            (
                "jane@class.test",
                "That looks like an e-mail address, not a place: the map needs a city, region or country, \(example)"
            ),
        ] {
            await fixture.bot.assertError("!post \(typed)", reply, as: "jane")
        }
        // A link with no place first is refused as a link, never looked up as a place.
        await fixture.bot.assertError(
            "!post javascript:alert(1)", "First tell me where you are: !post <place>, then send this link.", as: "jane")
        await fixture.bot.assertError("!post yes", "\"yes\" is not a place: …", as: "jane")
        #expect(await fixture.dm("!cancel", as: "jane") == ["There is nothing to cancel."])
    }

    @Test func aOneShotPostWithAMisspellingWaitsForTheConfirmationAndKeepsTheLink() async throws {
        let fixture = try await PostTests.loggedInJane()
        #expect(
            await fixture.dm("!post Seatle | https://jane.example", as: "jane") == [
                "Did you mean Seattle, Washington, United States? !post yes, or type the place again (your link is kept)."
            ])
        #expect(try await fixture.sqlite.recentLocations(limit: 10, skip: 0).isEmpty)
        let saved = await fixture.dmLines("!post yes", as: "jane")
        #expect(
            saved.first { $0.target == "jane" }?.text.hasPrefix(
                "You are on the map: Jane Doe — Seattle, Washington, United States (") == true)
        #expect(saved.contains { $0.target == "#class" && $0.text.hasPrefix("New pin: Jane Doe") })

        // Typing the place again, exactly, finishes the post with the kept link.
        fixture.advance(seconds: 60)
        #expect(await fixture.dm("!post Portlnd, Oregon | https://jane.example/pdx", as: "jane").count == 1)
        let retyped = await fixture.dm("!post Portland, Oregon", as: "jane")
        #expect(
            retyped.first?.hasPrefix("Your pin is updated: Jane Doe — Portland, Oregon, United States (") == true,
            "\(retyped)")
        #expect(retyped.first?.hasSuffix("— https://jane.example/pdx") == true)
    }

    @Test func regionsAndMetroAreasResolveToTheirCentre() async throws {
        let fixture = try await PostTests.loggedInJane()
        let bay = await fixture.dm("!post Bay Area", as: "jane")
        #expect(bay.first == "Found San Francisco Bay Area, California, United States (37.8040, -122.2710).")
        _ = await fixture.dm("!cancel", as: "jane")
        let ruhr = await fixture.dm("!post the Ruhr", as: "jane")
        #expect(ruhr.first == "Found Ruhr, North Rhine-Westphalia, Germany (51.4570, 7.0120).")
    }

    @Test func theExchangesInTheReadmeAreTrue() async throws {
        let fixture = try await PostTests.loggedInJane()
        #expect(
            await fixture.dm("!post Seatle", as: "jane") == [
                "Did you mean Seattle, Washington, United States? !post yes, or type the place again."
            ])
        #expect(
            await fixture.dm("!post yes", as: "jane") == [
                "Found Seattle, Washington, United States (47.6060, -122.3320).",
                "Now send your link: !link https://… (or !cancel; this waits 10 minutes).",
            ])
        let saved = await fixture.dmLines("!post https://jane.example/portfolio", as: "jane")
        #expect(
            saved.first { $0.target == "jane" }?.text
                == "You are on the map: Jane Doe — Seattle, Washington, United States (47.6060, -122.3320) — https://jane.example/portfolio"
        )
        #expect(
            await fixture.dm("!post Paris", as: "jane") == [
                "Found Paris, Île-de-France, France (48.8530, 2.3490); or Paris, Texas, United States: !post 2. This will replace your pin at Seattle, Washington, United States.",
                "Now send your link: !link https://… (or !cancel; this waits 10 minutes).",
            ])
        #expect(
            await fixture.dm("!post 2", as: "jane").first
                == "Found Paris, Texas, United States (33.6610, -95.5560); or Paris, Île-de-France, France: !post 1. This will replace your pin at Seattle, Washington, United States."
        )
        _ = await fixture.dm("!cancel", as: "jane")
        #expect(
            await fixture.dm("!post San Fran", as: "jane") == [
                "Did you mean 1) San Francisco, California, United States, 2) San Francisco, Caraga, Philippines, 3) San Francisco, Cordoba, Argentina?",
                "Choose with !post 1, !post 2 or !post 3, or type the place again.",
            ])
        #expect(
            await fixture.dm("!post online", as: "jane") == [
                "\"online\" is not a place on the map: it needs a city, region or country. Studying online? Give the city you are in, e.g. !post Lyon, France"
            ])
    }
}
