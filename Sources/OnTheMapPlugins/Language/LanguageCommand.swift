import BotKit
import ClassKit
import Foundation
import IRCProtocol
import Localization

/// `!lang [code | auto]`: shows or sets the language the bot answers one student in. A logged-in
/// student's choice is kept with their account (``StudentLanguages``); someone not logged in keeps
/// it for their nick while the bot runs. `!lang auto` goes back to the channel's or the default
/// language. A code without a catalogue changes nothing and lists the languages there are.
public struct LanguageCommand: Sendable {
    /// What `!lang` uses: the students' language choices, who is logged in, and the registry of
    /// what plugins keep (for `!mydata` and `!forget`).
    public struct Needs: ReadsSessions {
        public let languages: StudentLanguages
        public let logins: LoginGate<StudentLogin>
        public let keepers: StudentKeepers
        public let call = ServiceCalls()

        public init(languages: StudentLanguages, logins: LoginGate<StudentLogin>, keepers: StudentKeepers) {
            self.languages = languages
            self.logins = logins
            self.keepers = keepers
        }
    }

    let services: Needs

    public init(services: Needs) {
        self.services = services
        let languages = services.languages
        services.keepers.keepsAboutStudents(
            plugin: "lang",
            describe: { student in
                guard let chosen = try? await languages.chosen(byAccount: student.accountKey) else { return [] }
                return [
                    KeptItem(
                        id: "language", what: student.phrases("kept.language"), detail: chosen.nativeName,
                        changedAt: nil)
                ]
            },
            erase: { student in
                guard (try? await languages.chosen(byAccount: student.accountKey)) ?? nil != nil else { return [] }
                try? await languages.forget(accountKey: student.accountKey)
                return [student.phrases("kept.erased.language")]
            })
    }

    public var command: Command {
        let services = self.services
        return Command(
            "lang", aliases: ["language"],
            examples: [
                CommandExample(
                    "!lang es", explained: "example.lang.spanish", answer: "De acuerdo: te contesto en español (es).",
                    loggedIn: true),
                CommandExample(
                    "!lang auto", explained: "example.lang.auto",
                    answer: "OK: I answer you in this channel's or the class's language, English (en).",
                    loggedIn: true),
            ]
        ) { call in
            try await Self.run(call, services: services)
        }
    }

    static func run(_ call: Invocation, services: Needs) async throws {
        let languages = services.languages
        let account = services.session(of: call)?.profile.accountKey
        // Colours and other formatting a client may have added are not part of the code.
        let words = call.words.map { TextSanitizer.untrusted($0) }.filter { !$0.isEmpty }
        let list = Language.supported.map { "\($0.tag) \($0.nativeName)" }.joined(separator: ", ")
        guard let word = words.first else {
            let chosen: Language?
            if let account {
                chosen = try await services.call { try await languages.chosen(byAccount: account) }
            } else {
                chosen = await languages.chosen(forConnectionOf: call.sender, caseMapping: call.caseMapping)
            }
            let current = call.language
            let how =
                chosen == nil
                ? call.phrases("lang.byDefault")
                : call.phrases(account == nil ? "lang.chosenForConnection" : "lang.chosenWithAccount")
            await call.reply(
                lines: [
                    call.phrases("lang.current", ["language": "\(current.nativeName) (\(current.tag))", "how": how]),
                    call.phrases("lang.available", ["languages": list, "command": call.prefix + "lang"]),
                ])
            return
        }
        let resetting = word.lowercased() == "auto"
        guard words.count == 1, resetting || Language(tag: word) != nil else {
            let shown = TextSanitizer.truncated(TextSanitizer.untrusted(call.argument), maxBytes: 24)
            throw UserFacingError(
                call.phrases("lang.unknown", ["code": shown, "languages": list, "command": call.prefix + "lang"]))
        }
        let wanted = resetting ? nil : Language(tag: word)
        if let account {
            try await services.call { try await languages.set(wanted, forAccount: account) }
        } else {
            await languages.set(wanted, forConnectionOf: call.sender, caseMapping: call.caseMapping)
        }
        let now = wanted ?? call.languages.language(of: call.channel, caseMapping: call.caseMapping)
        let phrases = call.phrases.catalogs.phrasebook(now)
        let name = "\(now.nativeName) (\(now.tag))"
        var lines = [phrases(resetting ? "lang.reset" : "lang.set", ["language": name])]
        if account == nil, wanted != nil {
            lines.append(phrases("lang.notKept", ["login": call.prefix + "login"]))
        }
        await call.reply(lines: lines)
    }
}
