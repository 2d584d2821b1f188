import ClassKit
import Foundation
import FuzzingSupport
import OnTheMapPlugins
import OnTheMapService

/// What must hold for any chat line a student sends: the argument parsers called directly, then
/// the whole line through the real router and class plugins (see ``RouterRun``).
enum ArgumentProperties {
    /// The offline gazetteer, loaded once per process (about 130 ms).
    static let geocoder: GazetteerGeocoder = {
        do { return try GazetteerGeocoder.loadBundled() } catch { fatalError("gazetteer: \(error)") }
    }()

    static func check(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        // "command argument": the first word and the trimmed rest, as the router splits them.
        let line = text.drop { $0 == " " || $0 == "\t" }
        let wordEnd = line.firstIndex { $0 == " " || $0 == "\t" } ?? line.endIndex
        let argument = line[wordEnd...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        checkLink(argument)
        checkPlace(argument)
        if let bar = argument.firstIndex(of: "|") {
            // The one-shot form `!post <place> | <link>`.
            checkPlace(argument[..<bar].trimmingCharacters(in: .whitespaces))
            checkLink(argument[argument.index(after: bar)...].trimmingCharacters(in: .whitespaces))
        }
        checkDirectoryInput(argument)
        checkCleaning(argument)
        RouterRun.run(text)
    }

    /// Accepted links are http(s) with a host, no credentials, no spaces or control characters.
    static func checkLink(_ text: String) {
        switch LinkRules.validate(text) {
        case .success(let link):
            checkAcceptedLink(link)
            fuzzRequire(link == text.trimmingCharacters(in: .whitespaces), "accepted link was altered")
        case .failure(let problem):
            requireSafeReply(problem.sentence(prefix: "!"))
        }
        _ = LinkRules.looksLikeHost(text)
    }

    static func checkAcceptedLink(_ link: String) {
        fuzzRequire(link.utf8.count <= LinkRules.maximumBytes, "accepted link is too long")
        fuzzRequire(
            !link.unicodeScalars.contains { $0.properties.isWhitespace || isUnsafeScalar($0) },
            "accepted link has a space or control character: \(link.debugDescription)")
        let components = URLComponents(string: link)
        fuzzRequire(components != nil, "accepted link does not parse: \(link.debugDescription)")
        let scheme = components?.scheme?.lowercased()
        fuzzRequire(scheme == "http" || scheme == "https", "accepted scheme \(scheme ?? "nil")")
        fuzzRequire(!(components?.host ?? "").isEmpty, "accepted link without host: \(link.debugDescription)")
        fuzzRequire(
            components?.user == nil && components?.password == nil,
            "accepted link with credentials: \(link.debugDescription)")
    }

    /// Place queries never crash the gazetteer; candidates are printable and on the globe; a link
    /// is never resolved as a place, and at most three places are offered, two namesakes named.
    static func checkPlace(_ query: String) {
        for candidate in geocoder.lookup(query, limit: 3) {
            fuzzRequire(!candidate.displayName.isEmpty, "candidate without a name")
            fuzzRequire(candidate.coordinate.isValid, "candidate off the globe: \(candidate.coordinate)")
        }
        let resolution = PlaceResolver(geocoder: geocoder).resolve(query) { geocoder.lookup($0, limit: $1) }
        let lower = query.lowercased()
        switch resolution {
        case .found(let place, let namesakes):
            fuzzRequire(place.coordinate.isValid && namesakes.count <= 2, "found: \(place) and \(namesakes.count)")
            fuzzRequire(!lower.contains("://") && !lower.hasPrefix("javascript:"), "a link resolved as a place")
        case .offered(let offers):
            fuzzRequire((1...3).contains(offers.count), "\(offers.count) places offered")
            fuzzRequire(!lower.contains("://") && !lower.hasPrefix("javascript:"), "a link offered as a place")
        case .notAPlace, .notFound:
            break
        }
    }

    /// What DirectoryInput accepts has no control characters and respects its limits.
    static func checkDirectoryInput(_ text: String) {
        if let email = try? DirectoryInput.normalizedEmail(text) {
            fuzzRequire(email == email.lowercased(), "email not lowercased")
            fuzzRequire(email.utf8.count <= DirectoryInput.maximumEmailBytes, "email too long")
            fuzzRequire(email.split(separator: "@", omittingEmptySubsequences: false).count == 2, "email @")
            fuzzRequire(
                !email.unicodeScalars.contains { $0.properties.isWhitespace || isUnsafeScalar($0) },
                "email with space or control character")
        }
        if (try? DirectoryInput.validateNewPassword(text)) != nil {
            fuzzRequire(text.count >= DirectoryInput.minimumPasswordCharacters, "short password accepted")
            fuzzRequire(!DirectoryInput.containsControlCharacters(text), "password with control character")
        }
        let words = text.split(separator: " ", maxSplits: 1).map(String.init)
        if let names = try? DirectoryInput.validateNames(
            firstName: words.first ?? "", lastName: words.count > 1 ? words[1] : "")
        {
            for name in [names.0, names.1] {
                fuzzRequire(name.utf8.count <= DirectoryInput.maximumNameBytes, "name too long")
                fuzzRequire(!DirectoryInput.containsControlCharacters(name), "name with control character")
            }
        }
        let draft = PinDraft(
            uniqueKey: "fuzz", firstName: "Ada", lastName: "Lovelace", mapString: text, mediaURL: text,
            coordinate: Coordinate(latitude: 47.6, longitude: -122.3))
        if (try? DirectoryInput.validatePin(draft)) != nil {
            fuzzRequire(!DirectoryInput.containsControlCharacters(text), "pin with control character")
            fuzzRequire(text.utf8.count <= DirectoryInput.maximumMediaURLBytes, "pin link too long")
        }
    }

    /// `Formatting.clean` (how plugins quote what a student typed) gives one short printable line.
    static func checkCleaning(_ text: String) {
        let cleaned = Formatting.clean(text, maxBytes: 60)
        fuzzRequire(cleaned.utf8.count <= 60, "clean() result too long")
        requireSafeReply(cleaned)
    }

    /// Reply text may carry no control character, bidi override or line break.
    static func requireSafeReply(_ text: String) {
        fuzzRequire(
            !text.unicodeScalars.contains(where: isUnsafeScalar),
            "unsafe character in \(text.debugDescription)")
    }

    static func isUnsafeScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
