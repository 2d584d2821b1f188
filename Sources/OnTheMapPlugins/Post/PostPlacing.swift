import BotKit
import ClassKit
import Foundation
import IRCProtocol
import OnTheMapService
import Localization

/// An answer to a "did you mean" or a pick among namesakes: `!post yes`, `!post no`, `!post 2`.
enum PostChoice: Equatable {
    case yes, no
    case number(Int)

    /// Only the words and numbers that mean a choice; anything else is a place or a link.
    init?(_ text: String) {
        var word = text.trimmingCharacters(in: .whitespaces).lowercased()
        if word.hasPrefix("#") { word.removeFirst() }
        switch word {
        case "yes", "y", "yep", "yeah", "oui", "ja", "si", "sí": self = .yes
        case "no", "n", "nope", "non", "nein": self = .no
        default:
            guard word.count == 1, let number = Int(word), number >= 1 else { return nil }
            self = .number(number)
        }
    }
}

/// Step 1 of `!post`: the place, found exactly (with its namesakes named), offered when only a
/// near match was found, or refused with a sentence that says what to type.
extension PostPlugin {
    /// Resolves the place and opens (or restarts) the flow: confirmed for an exact match,
    /// waiting for `!post yes` / `!post <n>` for a near one. Replies with the step (except for an
    /// exact one-shot post, which `finish` answers).
    func startFlow(
        place typed: String, pendingLink: String?, bound: StudentSession, call: Invocation
    ) async throws -> PostDraft {
        let example = call.phrases("post.example", ["post": call.prefix + "post"])
        let typed = try Self.cleanedPlace(typed, call: call)
        let draft: PostDraft
        switch try await services.resolvePlace(typed) {
        case .found(let place, let namesakes):
            draft = try await newDraft(typed, [place] + namesakes, confirmed: true, pendingLink, bound)
        case .offered(let offers):
            draft = try await newDraft(typed, offers, confirmed: false, pendingLink, bound)
        case .notAPlace(let kind):
            throw UserFacingError(PlaceWording.notAPlace(kind, typed: typed, example: example, phrases: call.phrases))
        case .notFound:
            throw UserFacingError(PlaceWording.notFound(typed, example: example, phrases: call.phrases))
        }
        await flows.open(draft, for: bound)
        if !draft.isConfirmed {
            await call.reply(lines: offerLines(draft, call: call))
        } else if pendingLink == nil {
            await announceFound(draft, call: call)
        }
        return draft
    }

    /// The typed place made fit to become a pin's text (no colours, control characters or runs of
    /// spaces), or the sentence that says why it cannot: too long, not UTF-8, hidden characters, empty.
    static func cleanedPlace(_ typed: String, call: Invocation) throws -> String {
        let example: [String: any PhraseValue] = [
            "example": call.phrases("post.example", ["post": call.prefix + "post"])
        ]
        guard typed.utf8.count <= DirectoryInput.maximumMapStringBytes else {
            throw UserFacingError(call.phrases("post.placeTooLong", example))
        }
        // U+FFFD stands for bytes that were not UTF-8 (the line decoder puts it there): saved, the
        // place would show as "Madrid ����" to the whole class.
        guard !typed.unicodeScalars.contains("\u{FFFD}") else {
            throw UserFacingError(call.phrases("post.placeNotUTF8"))
        }
        // The one rule for a place's text on every way in: no text-direction, zero-width or other
        // format character (refused, as the API and imports refuse them); IRC's own formatting
        // codes are the client's markup and are removed, like control characters.
        guard
            !typed.unicodeScalars.contains(where: {
                $0.properties.generalCategory == .format && DirectoryInput.isHiddenCharacter($0)
            })
        else {
            throw UserFacingError(call.phrases("post.placeHiddenCharacters", example))
        }
        // The place becomes the pin's text: no colours or control characters.
        let typed = TextSanitizer.untrusted(typed).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !typed.isEmpty else {
            throw UserFacingError(whereAreYou(call))
        }
        return typed
    }

    private func newDraft(
        _ typed: String, _ choices: [PlaceCandidate], confirmed: Bool, _ pendingLink: String?,
        _ bound: StudentSession
    ) async throws -> PostDraft {
        let existing = try await services.call {
            try await services.directory.location(ofAccount: bound.profile.accountKey)
        }
        // The places offered are already those of the student's level: what they typed finer
        // (a street) is not kept in the open step either, and the answer shows what others will see.
        let level = try await services.call { try await services.privacyGate.level(of: bound.profile.accountKey) }
        var typed = typed
        var choices = choices
        if level != .exact {
            var coarse: [PlaceCandidate] = []
            for choice in choices {
                let place = await services.privacyGate.shown(choice, at: level)
                if !coarse.contains(where: { $0.displayName == place.displayName }) { coarse.append(place) }
            }
            choices = coarse
            typed = TextSanitizer.truncated(
                Formatting.clean(coarse[0].displayName, maxBytes: 200), maxBytes: DirectoryInput.maximumMapStringBytes)
        }
        return PostDraft(
            typedPlace: typed, place: choices[0], choices: choices, isConfirmed: confirmed,
            pendingLink: pendingLink, existingPlace: existing?.mapString, startedAt: await flows.currentTime)
    }

    /// `!post yes`, `!post no`, `!post <n>` while a flow is open.
    func choose(_ choice: PostChoice, in draft: PostDraft, bound: StudentSession, call: Invocation) async throws {
        let prefix = call.prefix
        let index: Int
        switch choice {
        case .no where draft.isConfirmed:
            throw UserFacingError(
                call.phrases(
                    "post.dropOrGoOn", ["cancel": prefix + "cancel", "next": nextStep(of: draft, call: call)]))
        case .no:
            await flows.close(bound.owner)
            await call.reply(
                call.phrases(
                    "post.noneChosen",
                    ["post": prefix + "post", "example": call.phrases("post.example", ["post": prefix + "post"])]))
            return
        case .yes where draft.isConfirmed:
            throw UserFacingError(nextStep(of: draft, call: call))
        case .yes:
            index = 0
        case .number(let number):
            guard number <= draft.choices.count else {
                let next = nextStep(of: draft, call: call)
                throw UserFacingError(
                    draft.choices.count == 1
                        ? call.phrases("post.noSuchChoice", ["number": number, "next": next])
                        : call.phrases("post.chooseANumber", ["last": draft.choices.count, "next": next]))
            }
            index = number - 1
        }
        let chosen = draft.choices[index]
        var confirmed = draft
        confirmed.place = chosen
        if !draft.isConfirmed || index > 0 {
            // The pin shows the place chosen, not the misspelling or the ambiguous name typed.
            confirmed.typedPlace = TextSanitizer.truncated(
                Formatting.clean(chosen.displayName, maxBytes: 200), maxBytes: DirectoryInput.maximumMapStringBytes)
        }
        if !draft.isConfirmed { confirmed.choices = [chosen] }
        confirmed.isConfirmed = true
        confirmed.startedAt = await flows.currentTime
        await flows.open(confirmed, for: bound)
        if let link = confirmed.pendingLink {
            try await finish(confirmed, link: link, bound: bound, call: call, oneShot: true)
        } else {
            await announceFound(confirmed, call: call)
        }
    }

    /// What the open flow waits for, as one sentence.
    func nextStep(of draft: PostDraft, call: Invocation) -> String {
        guard draft.isConfirmed else { return offerLines(draft, call: call).joined(separator: " ") }
        return call.phrases("post.sendLink", ["link": call.prefix + "link", "cancel": call.prefix + "cancel"])
    }

    /// "Did you mean …? !post yes, or type the place again." (numbered when there are several).
    func offerLines(_ draft: PostDraft, call: Invocation) -> [String] {
        let phrases = call.phrases
        let again = phrases(draft.pendingLink == nil ? "post.typeAgain" : "post.typeAgainLinkKept")
        let post = call.prefix + "post"
        if draft.choices.count == 1 {
            return [
                phrases(
                    "post.didYouMeanOne",
                    ["place": PlaceWording.offers(draft.choices, phrases: phrases), "post": post, "again": again])
            ]
        }
        let numbers = (1...draft.choices.count).map { "\(post) \($0)" }
        return [
            phrases("post.didYouMean", ["places": PlaceWording.offers(draft.choices, phrases: phrases)]),
            phrases(
                "post.chooseWith",
                [
                    "choices": numbers.dropLast().joined(separator: ", "), "last": numbers.last ?? "",
                    "again": again,
                ]),
        ]
    }

    /// "Found … (lat, lon); or <namesake>: !post 2." and the link step.
    func announceFound(_ draft: PostDraft, call: Invocation) async {
        let phrases = call.phrases
        var others = ""
        for (offset, other) in draft.choices.enumerated() where other != draft.place {
            others += phrases(
                "post.orNamesake",
                [
                    "place": Formatting.clean(other.displayName, maxBytes: 80),
                    "choice": "\(call.prefix)post \(offset + 1)",
                ])
        }
        var found = phrases(
            "post.foundAt",
            [
                "place": PlaceWording.place(draft.place, phrases: phrases),
                "coordinate": Formatting.coordinate(draft.place.coordinate),
                "others": others,
            ])
        if let existing = draft.existingPlace {
            found += " " + phrases("post.willReplace", ["place": Formatting.place(existing, phrases: phrases)])
        }
        var next = phrases(
            "post.sendLinkWithin",
            [
                "link": call.prefix + "link", "cancel": call.prefix + "cancel",
                "duration": phrases.duration(seconds: await flows.lifetimeMinutes * 60),
            ])
        if let map = services.settings.webMapURL {
            next += " " + phrases("post.mapAddress", ["url": Formatting.clean(map, maxBytes: 200)])
        }
        await call.reply(lines: [found, next])
    }
}
