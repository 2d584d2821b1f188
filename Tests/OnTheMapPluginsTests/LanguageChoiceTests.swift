import BotKit
import BotTesting
import ClassKit
import Foundation
import IRCProtocol
import Localization
import OnTheMapPlugins
import OnTheMapService
import Testing

/// `!lang`: a logged-in student's language is kept with their account in the state store (shown by
/// `!mydata`, in the export, erased by `!forget`); someone not logged in keeps it for their nick
/// only; a code without a catalogue changes nothing; answers and refusals follow the choice.
@Suite struct LanguageChoiceTests {
    static let spanish = Catalogs.bundled.phrasebook(.spanish)

    @Test func aStudentsLanguageIsKeptWithTheAccountExportedAndErased() async throws {
        let fixture = try await PrivacyTests.start()
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        #expect(await fixture.logIn("jane", email: "jane@class.test").first?.hasPrefix("Welcome") == true)
        #expect(await fixture.dm("!lang es", as: "jane") == [Self.spanish("lang.set", ["language": "español (es)"])])
        let key = try #require(try await fixture.sqlite.listAccounts().first?.accountKey)
        #expect(try await fixture.sqlite.state(StudentLanguages.stateKey(accountKey: key)) == "es")
        // Refusals of the router are in her language too.
        #expect(
            await fixture.dm("!nosuchcommand", as: "jane")
                == [Self.spanish("router.unknownCommand", ["word": "nosuchcommand", "help": "!help"])])
        // A new instance reads the choice from the store.
        #expect(try await fixture.services.languages.chosen(byAccount: key) == .spanish)

        let export = try #require(
            try await StudentDataExport.make(.key(key), accounts: fixture.sqlite, store: fixture.sqlite))
        #expect(export.chosenLanguage == "es")
        let kept = await fixture.services.keptItems(
            about: StudentReference(
                accountKey: key, sender: nil, caseMapping: .rfc1459, identities: [],
                phrases: Catalogs.bundled.phrasebook(.spanish)))
        #expect(kept.contains(KeptItem(id: "language", what: "idioma", detail: "español", changedAt: nil)))

        _ = await fixture.dm("!forget", as: "jane")
        _ = await fixture.dm("!forget confirm", as: "jane")
        #expect(try await fixture.sqlite.state(StudentLanguages.stateKey(accountKey: key)) == nil)
    }

    /// The two steps of `!post`, a trip typed with Spanish words, `!mydata` and `!forget` are all in
    /// Spanish for a student who chose it, with Spanish dates and counted words.
    @Test func postingATripAndErasingAreInTheStudentsLanguage() async throws {
        let fixture = try await PrivacyTests.start()
        let es = Self.spanish
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        _ = await fixture.logIn("jane", email: "jane@class.test")
        _ = await fixture.dm("!lang es", as: "jane")
        let found = await fixture.dm("!post Paris", as: "jane")
        #expect(
            found.first?.hasPrefix("Encontré Paris") == true && found.first?.contains("Francia") == true, "\(found)")
        #expect(
            found.last?.hasPrefix("Ahora envía tu enlace: !link https://… (o !cancel; esto espera 10 minutos).") == true
        )
        #expect(
            await fixture.dm("!link example.org/jane", as: "jane")
                == [es("link.missingScheme", ["link": "!link", "suggestion": "https://example.org/jane"])])
        let saved = await fixture.dm("!link https://example.org/jane", as: "jane")
        #expect(saved.first?.hasPrefix("Estás en el mapa: Jane Doe — Paris") == true, "\(saved)")
        // A trip's end typed in Spanish, answered with a Spanish date.
        let trip = await fixture.dm("!post Lisbon until 24 de diciembre", as: "jane")
        #expect(
            trip.first?.hasPrefix("Estás en Lisbon") == true && trip.first?.contains("hasta el 24 dic") == true,
            "\(trip)")
        #expect(
            await fixture.dm("!post Lisbon until pronto", as: "jane")
                == [es("trip.date.unreadable", ["text": "pronto", "forms": TripEndDateParser.acceptedForms(in: es)])])
        let data = await fixture.dm("!mydata", as: "jane")
        #expect(data.first?.hasPrefix("Cuenta: jane@class.test, Jane Doe") == true, "\(data)")
        #expect(data.contains { $0.hasPrefix("Viaje: Lisbon") }, "\(data)")
        #expect(data.contains { $0.contains("idioma: español") }, "\(data)")
        #expect(data.last == es("privacy.log.codeName"))
        let asked = await fixture.dm("!forget", as: "jane")
        #expect(
            asked.first?.hasPrefix("Esto borra para siempre: tu cuenta (jane@class.test, Jane Doe)") == true, "\(asked)"
        )
        let erased = await fixture.dm("!forget confirm", as: "jane")
        #expect(erased.first?.hasPrefix("Borrado: tu cuenta (correo y nombre), tu pin (") == true, "\(erased)")
        #expect(erased.first?.contains("tu idioma") == true, "\(erased)")
    }

    /// The account rules `!register` applies are said in the asker's language.
    @Test func accountRulesAreSaidInTheAskersLanguage() async throws {
        let fixture = try RegistrationAbuseTests.fixture()
        _ = await fixture.dm("!lang pt-BR", as: "newbie")
        let portuguese = Catalogs.bundled.phrasebook(.brazilianPortuguese)
        let short = await fixture.dm("!register new@class.test short Nova Aluna", as: "newbie")
        #expect(
            short
                == [
                    portuguese(
                        "directory.refused",
                        [
                            "reason": portuguese(
                                "input.passwordTooShort", ["count": DirectoryInput.minimumPasswordCharacters])
                        ])
                ], "\(short)")
        #expect(
            await fixture.dm("!register not-an-email longenough1 Nova Aluna", as: "newbie")
                == [portuguese("directory.refused", ["reason": portuguese("input.notAnEmail")])])
    }

    @Test func someoneNotLoggedInKeepsALanguageForTheirNickOnly() async throws {
        let fixture = try await PrivacyTests.start()
        let french = Catalogs.bundled.phrasebook(.french)
        #expect(
            await fixture.dm("!lang FR", as: "bob") == [
                french("lang.set", ["language": "français (fr)"]), french("lang.notKept", ["login": "!login"]),
            ])
        #expect(
            await fixture.dm("!units", as: "bob") == [french("units.current", ["unit": "km", "command": "!units"])])
        // Another nick reads the default language; nothing was written to the store.
        #expect(
            await fixture.dm("!units", as: "carol") == ["Your distances are in km. Change with !units km or !units mi."]
        )
        #expect(try await fixture.sqlite.stateKeys(prefix: "language/") == [])
    }

    @Test func anUnknownOrMalformedCodeChangesNothing() async throws {
        let fixture = try await PrivacyTests.start()
        for typed in ["xx", "es-ES-x-\u{202E}evil", "es fr", "x\u{0}x"] {
            let answer = await fixture.dm("!lang \(typed)", as: "bob")
            #expect(answer.count == 1 && answer[0].hasPrefix("I have no language \""), "\(answer)")
            #expect(answer[0].contains("es español") && answer[0].contains("ja 日本語"), "\(answer)")
            #expect(!answer[0].contains("\u{202E}") && !answer[0].contains("\u{0}"), "\(answer)")
        }
        #expect(
            await fixture.dm("!units", as: "bob") == ["Your distances are in km. Change with !units km or !units mi."])
    }
}

/// A student's `!lang` holds for their next command at once, even when that command's read of the
/// stored choice began before the choice was written (lines a client sends back to back are
/// admitted while the previous command still runs).
@Suite struct StudentLanguageRaceTests {
    /// A state store whose reads wait until they are let through.
    actor HeldReadStore: BotStateStore {
        private var values: [String: String] = [:]
        private var held: [CheckedContinuation<Void, Never>] = []
        private var holding = false

        func hold() { holding = true }
        func release() {
            holding = false
            for reader in held { reader.resume() }
            held.removeAll()
        }
        var waitingReads: Int { held.count }

        func state(_ key: String) async throws -> String? {
            let before = values[key]
            if holding { await withCheckedContinuation { held.append($0) } }
            return before
        }
        func setState(_ key: String, _ value: String?) async throws { values[key] = value }
        func stateKeys(prefix: String) async throws -> [String] { values.keys.filter { $0.hasPrefix(prefix) } }
        func states(prefix: String) async throws -> [String: String] { values.filter { $0.key.hasPrefix(prefix) } }
        func takeState(_ key: String) async throws -> String? { values.removeValue(forKey: key) }
    }

    @Test func aChoiceHoldsForACommandWhoseReadBeganBeforeIt() async throws {
        let store = HeldReadStore()
        let book = SessionBook<StudentLogin>()
        let tom = UserIdentity(nick: "tom", user: "~tom", host: "tom.example")
        let session = DirectorySession(accountKey: "tom-key", sessionId: "s1", expiresAt: .distantFuture)
        await book.bind(
            StudentLogin(
                session: session, profile: StudentProfile(accountKey: "tom-key", firstName: "Tom", lastName: "T")),
            to: tom)
        let languages = StudentLanguages(store: store, sessions: book)
        await store.hold()
        // The next command's read of Tom's language starts and waits on the store (it sees no choice yet)...
        let read = Task { await languages.chosenLanguage(of: tom, caseMapping: .rfc1459) }
        while await store.waitingReads == 0 { await Task.yield() }
        // ...while his `!lang es` is kept.
        try await languages.set(.spanish, forAccount: "tom-key")
        await store.release()
        #expect(await read.value == .spanish)
        #expect(await languages.chosenLanguage(of: tom, caseMapping: .rfc1459) == .spanish)
    }
}
