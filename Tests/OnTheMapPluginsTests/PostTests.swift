import BotKit
import BotTesting
import ClassKit
import Foundation
import OnTheMapService
import Testing

@Suite struct PostTests {
    static func loggedInJane(
        _ settings: ClassSettings = ClassSettings(announceChannels: ["#class", "#lounge"])
    )
        async throws -> ClassFixture
    {
        let fixture = try ClassFixture(settings: settings)
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        #expect(await fixture.logIn("jane", email: "jane@class.test").first?.hasPrefix("Welcome") == true)
        return fixture
    }

    @Test func twoStepsSaveThePinConfirmAndAnnounceOnce() async throws {
        let fixture = try await Self.loggedInJane()
        let seattle = try await SharedGazetteer.coordinate(of: "Seattle, WA")
        let found = await fixture.dm("!post Seattle, WA", as: "jane")
        #expect(found.count == 2)
        #expect(found[0].hasPrefix("Found Seattle"))
        #expect(found[0].contains(String(format: "(%.4f, %.4f)", seattle.latitude, seattle.longitude)))
        #expect(!found[0].contains("replace"))
        #expect(found[1].hasPrefix("Now send your link: !link https://…"))

        let saved = await fixture.dmLines("!post https://jane.example/portfolio", as: "jane")
        let confirmation = saved.filter { $0.target == "jane" }.map(\.text)
        #expect(confirmation.count == 1)
        // At the class's default precision the pin shows the town found, under its own name.
        #expect(confirmation[0].hasPrefix("You are on the map: Jane Doe — Seattle, Washington, United States ("))
        #expect(confirmation[0].hasSuffix("— https://jane.example/portfolio"))
        let announcements = saved.filter { $0.target.hasPrefix("#") }
        #expect(announcements.map(\.target) == ["#class", "#lounge"])
        #expect(
            announcements.allSatisfy {
                $0.text == "New pin: Jane Doe — Seattle, Washington, United States — https://jane.example/portfolio"
            })

        let pin = try #require(
            try await fixture.sqlite.location(ofAccount: fixture.sqlite.listAccounts()[0].accountKey))
        #expect(pin.mapString == "Seattle, Washington, United States")
        #expect(pin.mediaURL == "https://jane.example/portfolio")
        #expect(pin.coordinate == seattle)
        // The flow is over, and the class map already knows the pin.
        #expect(
            await fixture.dm("!link https://again.example", as: "jane").first?.hasPrefix(
                "First tell me where you are") == true)
        #expect(
            await fixture.dm("!where doe", as: "bob").first?.hasPrefix(
                "Jane Doe — Seattle, Washington, United States — https://jane.example/portfolio") == true)
        // By nick (jane has a session), the pin comes first.
        #expect(
            await fixture.dm("!where jane", as: "bob").first?.hasPrefix(
                "jane is Jane Doe — Seattle, Washington, United States")
                == true)
        // The announcer will not announce it a second time: the ledger already holds this version,
        // so claiming it again gets nothing.
        #expect(await fixture.services.ledger.claim([pin]).isEmpty)
    }

    @Test func oneShotAndReplacingAnExistingPin() async throws {
        let fixture = try await Self.loggedInJane()
        let first = await fixture.dmLines("!post Paris, France | https://jane.example", as: "jane")
        #expect(
            first.first { $0.target == "jane" }?.text.hasPrefix(
                "You are on the map: Jane Doe — Paris, Île-de-France, France") == true)

        fixture.advance(seconds: 60)
        let found = await fixture.dm("!post Berlin", as: "jane")
        #expect(found[0].contains("This will replace your pin at Paris, Île-de-France, France."))
        let moved = await fixture.dmLines("!link https://jane.example/berlin", as: "jane")
        #expect(
            moved.first { $0.target == "jane" }?.text.hasPrefix("Your pin is updated: Jane Doe — Berlin")
                == true)
        #expect(moved.first { $0.target == "#class" }?.text.hasPrefix("Moved pin: Jane Doe — Berlin") == true)
        #expect(try await fixture.sqlite.recentLocations(limit: 10, skip: 0).count == 1)
    }

    @Test func badLinksAreRefusedAndTheFlowStaysOpen() async throws {
        let fixture = try await Self.loggedInJane()
        _ = await fixture.dm("!post Tokyo", as: "jane")
        #expect(
            await fixture.dm("!link", as: "jane")
                == ["The link is empty: send it with !link https://your-page.example (or !cancel)."])
        #expect(
            await fixture.dm("!post example.com", as: "jane")
                == ["Links start with http:// or https:// — did you mean !link https://example.com ?"])
        #expect(
            await fixture.dm("!link ftp://files.example/me", as: "jane")
                == [
                    "Only http and https links are accepted; send the address of your page, like https://example.com/your-page."
                ])
        // Said with !post in the link step, a link of any scheme is judged as a link, never as a place.
        for link in ["!link javascript:alert(1)", "!post javascript:alert(1)", "!post JavaScript:alert(1)"] {
            let reply = await fixture.dm(link, as: "jane")
            #expect(
                reply == [
                    "Only http and https links are accepted; send the address of your page, like https://example.com/your-page."
                ], "\(link)")
            #expect(!(reply.first ?? "").contains("javascript"))
        }
        #expect(
            await fixture.dm("!post www.example.com/jane", as: "jane")
                == ["Links start with http:// or https:// — did you mean !link https://www.example.com/jane ?"])
        // A new place in the link step needs !cancel first, and the reply says so.
        #expect(
            await fixture.dm("!post Berlin", as: "jane") == [
                "Your place is Tokyo, Japan; now send your link: !link https://… — for another place, !cancel first, then !post <place>."
            ])
        #expect(
            await fixture.dm("!link https://", as: "jane").first?.hasPrefix("That link has no host name")
                == true)
        let long = "https://example.com/" + String(repeating: "a", count: 2_100)
        #expect(
            await fixture.dm("!link \(long)", as: "jane") == [
                "That link is longer than 2,048 bytes; please send a shorter one."
            ])
        #expect(try await fixture.sqlite.recentLocations(limit: 10, skip: 0).isEmpty)

        let saved = await fixture.dm("!link https://example.com", as: "jane")
        #expect(saved.first?.hasPrefix("You are on the map: Jane Doe — Tokyo") == true)
    }

    @Test func oneShotWithABadLinkKeepsThePlace() async throws {
        let fixture = try await Self.loggedInJane()
        let replies = await fixture.dm("!post Lima, Peru | lima.example", as: "jane")
        #expect(replies.count == 1)
        #expect(replies[0].hasPrefix("Found Lima"))
        #expect(replies[0].contains("did you mean !link https://lima.example ?"))
        #expect(replies[0].contains("Your place is kept"))
        let saved = await fixture.dm("!link https://lima.example", as: "jane")
        #expect(saved.first?.hasPrefix("You are on the map: Jane Doe — Lima, Lima Province, Peru") == true, "\(saved)")
    }

    @Test func unknownPlacesCancelAndExpiry() async throws {
        let fixture = try await Self.loggedInJane()
        let bot = fixture.bot
        await bot.assertError(
            "!post Qwxzvb Qqqq",
            "No place called \"Qwxzvb Qqqq\" was found; try \"City, Country\", e.g. !post Lyon, France",
            as: "jane")
        await bot.assertError("!post", "Where are you?…", as: "jane")
        await bot.assertResponse("!cancel", "There is nothing to cancel.", as: "jane")
        _ = await fixture.dm("!post Oslo", as: "jane")
        await bot.assertError("!post", "Now send your link…", as: "jane")
        await bot.assertResponse("!cancel", "OK, your post is cancelled; nothing was changed.", as: "jane")
        #expect(
            await fixture.dm("!link https://x.example", as: "jane").first?.hasPrefix(
                "First tell me where you are") == true)

        _ = await fixture.dm("!post Oslo", as: "jane")
        fixture.advance(seconds: 11 * 60)
        #expect(
            await fixture.dm("!link https://x.example", as: "jane")
                == ["Your post waited too long and expired; start again with !post <place>."])
        #expect(try await fixture.sqlite.recentLocations(limit: 10, skip: 0).isEmpty)
    }

    @Test func postingNeedsALoginAndAPrivateMessage() async throws {
        let fixture = try ClassFixture()
        #expect(
            await fixture.dm("!post Paris", as: "bob")
                == ["You need to log in first: /msg MapBot !login <email> <password>"])
        let inChannel = await fixture.say("!post Paris", as: "bob")
        #expect(inChannel.map(\.text) == ["bob: !post works only in a private message: /msg MapBot !post …"])
    }

    @Test func aFailedSaveSaysWhyAndKeepsTheFlow() async throws {
        let fixture = try await Self.loggedInJane()
        _ = await fixture.dm("!post Nairobi", as: "jane")
        fixture.directory.setFault(.networkUnreachable("refused"))
        let failed = await fixture.dmLines("!link https://jane.example", as: "jane")
        #expect(
            failed.map(\.text) == [
                "I could not reach the class directory, so your pin was not saved. Your place and link are kept: send !link <link> to try again, or !cancel."
            ])
        fixture.directory.setFault(.rejectedInput("The place contains control characters."))
        let refused = await fixture.dmLines("!link https://jane.example", as: "jane")
        #expect(
            refused.first?.text.hasPrefix(
                "Your pin was not saved. The class directory refused that: The place contains control characters."
            ) == true)
        fixture.directory.setFault(nil)
        let saved = await fixture.dm("!link https://jane.example", as: "jane")
        #expect(saved.first?.hasPrefix("You are on the map: Jane Doe — Nairobi") == true)
    }

    @Test func aBusyDirectoryIsSaidPlainlyAndKeepsTheFlow() async throws {
        let fixture = try await Self.loggedInJane()
        _ = await fixture.dm("!post Nairobi", as: "jane")
        fixture.directory.setFault(.unavailable("SQLite: database is locked"))
        let failed = await fixture.dm("!link https://jane.example", as: "jane")
        #expect(
            failed == [
                "Your pin was not saved. The class directory is busy; nothing was changed. Please try again in a minute. Your place and link are kept: send !link <link> to try again, or !cancel."
            ])
        fixture.directory.setFault(nil)
        #expect(
            await fixture.dm("!link https://jane.example", as: "jane").first?.hasPrefix("You are on the map") == true)
    }

    @Test func placesThatWereNotUTF8AreRefusedAndNothingIsSaved() async throws {
        let fixture = try await Self.loggedInJane()
        let refusal =
            "That place has characters I could not read (the text did not arrive as UTF-8); please set your IRC client to UTF-8 and send it again."
        await fixture.bot.assertError("!post Madrid \u{FFFD}\u{FFFD}", refusal, as: "jane")
        await fixture.bot.assertError("!post Madrid\u{FFFD} | https://jane.example", refusal, as: "jane")
        let link = await fixture.dm("!post Madrid | https://jane.example/\u{FFFD}", as: "jane")
        #expect(link.first?.contains("That link has characters I could not read") == true, "\(link)")
        #expect(try await fixture.sqlite.recentLocations(limit: 10, skip: 0).isEmpty)
    }
}

@Suite struct LinkRuleTests {
    @Test func rules() {
        #expect(LinkRules.validate("https://example.com/a?b=c") == .success("https://example.com/a?b=c"))
        #expect(LinkRules.validate("HTTP://Example.com") == .success("HTTP://Example.com"))
        #expect(LinkRules.validate("  ") == .failure(.empty))
        #expect(
            LinkRules.validate("www.example.org/me")
                == .failure(.missingScheme(suggestion: "https://www.example.org/me")))
        #expect(LinkRules.validate("mailto:me@example.com") == .failure(.unsupportedScheme("mailto")))
        #expect(LinkRules.validate("https://exa mple.com") == .failure(.malformed))
        #expect(LinkRules.validate("https://ex\u{07}ample.com") == .failure(.hiddenCharacters))
        #expect(LinkRules.validate("https://example.com/\u{200F}me") == .failure(.hiddenCharacters))
        #expect(LinkRules.validate("https://example.com/\u{061C}me") == .failure(.hiddenCharacters))
        #expect(LinkRules.validate("https://example.com/\u{FFFD}me") == .failure(.unreadableCharacters))
        #expect(LinkRules.validate("just words") == .failure(.malformed))
        #expect(LinkRules.validate("https:///path") == .failure(.missingHost))
        #expect(LinkRules.validate("https://jane:hunter22@example.com/me") == .failure(.credentials))
        #expect(LinkRules.validate("https://jane@example.com/me") == .failure(.credentials))
        #expect(LinkRules.validate("https://example.com/@jane") == .success("https://example.com/@jane"))
        #expect(!LinkRules.Problem.credentials.sentence(prefix: "!").contains("hunter22"))
        #expect(
            LinkRules.validate("https://e.com/" + String(repeating: "a", count: 2_048)) == .failure(.tooLong))
    }
}
