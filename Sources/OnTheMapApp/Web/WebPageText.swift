import Foundation
import Localization

/// The words of a served page in one language, from the message catalogues.
///
/// A page's HTML names each text by its catalogue key, `{{t:web.page.tab.map}}`: ``render(_:values:markup:)``
/// puts the message there, HTML-escaped. A message may hold a piece of markup the page needs
/// inside the sentence (a link, an element a script fills): its placeholder is given in `markup`
/// and put in after the escaping, so translators move it with the words and never write HTML.
/// The page's scripts read their messages from ``scriptBlock(prefixes:)``, a JSON data block the
/// page carries (`<script type="application/json">`, which runs nothing and the page's
/// Content-Security-Policy allows), and fill them with `t('web.page.…', {…})`.
struct WebPageText {
    let phrases: Phrasebook

    var language: Language { phrases.language }

    /// The language's locale as a BCP 47 tag, for the browser's `Intl` ("en-001", "pt-BR").
    var intlLocale: String { language.locale.identifier.replacingOccurrences(of: "_", with: "-") }

    private static let markupOpen: Character = "\u{E000}"
    private static let markupClose: Character = "\u{E001}"

    /// `template` with every `{{t:<key>}}` replaced by that message in this language: its
    /// placeholders filled from `values` (escaped like the rest) or with the HTML of `markup`.
    func render(_ template: String, values: [String: any PhraseValue] = [:], markup: [String: String] = [:]) -> String {
        var filled = values
        for name in markup.keys { filled[name] = "\(Self.markupOpen)\(name)\(Self.markupClose)" }
        var out = ""
        out.reserveCapacity(template.utf8.count + 2_048)
        var rest = Substring(template)
        while let open = rest.range(of: "{{t:") {
            out += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                rest = rest[open.lowerBound...]
                break
            }
            let key = String(rest[open.upperBound..<close.lowerBound])
            var text = WebMap.escapeHTML(phrases(key, filled))
            for (name, html) in markup {
                text = text.replacingOccurrences(of: "\(Self.markupOpen)\(name)\(Self.markupClose)", with: html)
            }
            out += text
            rest = rest[close.upperBound...]
        }
        out += rest
        return out
    }

    /// The messages whose keys start with one of `prefixes`, in this language, with the language
    /// and its locale, as JSON safe inside a `<script type="application/json">` element:
    /// `{"language": "es", "locale": "es", "messages": {"web.page.x": "…", "web.page.y":
    /// {"plural": "count", "one": "…", "other": "…"}}}`.
    func scriptBlock(prefixes: [String]) -> String {
        var messages: [String: Any] = [:]
        for key in phrases.catalogs.source.messages.keys where prefixes.contains(where: { key.hasPrefix($0) }) {
            switch phrases.catalogs.message(key, in: language) {
            case .text(let text)?:
                messages[key] = text
            case .counted(let selector, let forms)?:
                var entry: [String: String] = ["plural": selector]
                for (category, form) in forms { entry[category.rawValue] = form }
                messages[key] = entry
            case nil:
                break
            }
        }
        let object: [String: Any] = ["language": language.tag, "locale": intlLocale, "messages": messages]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
            .replacingOccurrences(of: "<", with: "\\u003c").replacingOccurrences(of: ">", with: "\\u003e")
            .replacingOccurrences(of: "&", with: "\\u0026")
    }

    /// The `<option>`s of the language menu: each language in its own name, this one selected.
    func languageOptions() -> String {
        Language.supported.map { option in
            let selected = option == language ? " selected" : ""
            return "<option value=\"\(option.tag)\" lang=\"\(option.tag)\"\(selected)>"
                + "\(WebMap.escapeHTML(option.nativeName))</option>"
        }.joined()
    }
}
