import Foundation

/// Countries and their first-level divisions (states, regions, provinces) named in each supported
/// language, from Debian's `iso-codes` package: the ISO 3166 lists (`iso_3166-1.json`,
/// `iso_3166-2.json`) and their gettext catalogues (`<ll>/LC_MESSAGES/iso_3166-1.mo`, `…-2.mo`).
///
///     names.translate("Munich, Bavaria, Germany", into: .french)   // "Munich, Bavière, Allemagne"
///
/// A country is known by its English names (ISO's name, common and official names, and the short
/// names the gazetteer writes), compared without case, accents or hyphens; a division by ISO's
/// name for it (often the local one, "Bayern") or its English name from the `en` catalogue
/// ("Bavaria"). Only the translated names of the supported languages are kept once read.
public struct PlaceNames: Sendable {
    /// Each folded English name of a country → its ISO 3166-1 alpha-2 code.
    private let countryCodes: [String: String]
    /// Per country code, each folded name of a first-level division → ISO's name of it (the msgid).
    private let divisionNames: [String: [String: String]]
    /// Per language, each country code → the country's name in it.
    private let countries: [Language: [String: String]]
    /// Per language, ISO's name of a division → its name in the language.
    private let divisions: [Language: [String: String]]
    /// What could not be read, a sentence each (empty when every file was read).
    public let problems: [String]

    /// No names at all: every place stays as stored.
    public static let none = PlaceNames(
        countryCodes: [:], divisionNames: [:], countries: [:], divisions: [:], problems: [])

    /// Where Debian's `iso-codes` puts its lists.
    public static let systemJSONFolder = URL(fileURLWithPath: "/usr/share/iso-codes/json")
    /// Where the gettext catalogues are installed.
    public static let systemLocaleFolder = URL(fileURLWithPath: "/usr/share/locale")

    /// The names of the installed `iso-codes`, read on first use; ``problems`` says what was missing.
    public static let installed = PlaceNames(jsonFolder: systemJSONFolder, localeFolder: systemLocaleFolder)

    /// The lists and catalogues of `iso-codes` that are not installed (checked without reading them).
    public static func missingFiles(
        jsonFolder: URL = systemJSONFolder, localeFolder: URL = systemLocaleFolder
    ) -> [String] {
        var files = ["iso_3166-1.json", "iso_3166-2.json"].map { jsonFolder.appendingPathComponent($0).path }
        for language in Language.supported where language != .english {
            let folder = language.tag.replacingOccurrences(of: "-", with: "_")
            for domain in ["iso_3166-1", "iso_3166-2"] {
                files.append(localeFolder.appendingPathComponent("\(folder)/LC_MESSAGES/\(domain).mo").path)
            }
        }
        return files.filter { !FileManager.default.fileExists(atPath: $0) }
    }

    private init(
        countryCodes: [String: String], divisionNames: [String: [String: String]],
        countries: [Language: [String: String]], divisions: [Language: [String: String]], problems: [String]
    ) {
        self.countryCodes = countryCodes
        self.divisionNames = divisionNames
        self.countries = countries
        self.divisions = divisions
        self.problems = problems
    }

    /// Reads the lists from `jsonFolder` and the catalogues from `localeFolder`
    /// (`<ll>/LC_MESSAGES/…`, `pt_BR` for pt-BR). A file missing or broken is left out and named in
    /// ``problems``: the names it would give stay as stored.
    public init(jsonFolder: URL, localeFolder: URL) {
        var problems: [String] = []
        let countryList: [ISOCountry]
        let divisionList: [ISODivision]
        do {
            countryList = try Self.read(ISOCountries.self, jsonFolder.appendingPathComponent("iso_3166-1.json")).list
        } catch {
            problems.append(error.description)
            countryList = []
        }
        do {
            divisionList = try Self.read(ISODivisions.self, jsonFolder.appendingPathComponent("iso_3166-2.json")).list
                .filter { $0.parent == nil }
        } catch {
            problems.append(error.description)
            divisionList = []
        }
        func catalogue(_ language: String, _ domain: String, keeping: Set<String>) -> GettextCatalog? {
            guard !keeping.isEmpty else { return nil }
            let url = localeFolder.appendingPathComponent("\(language)/LC_MESSAGES/\(domain).mo")
            do {
                return try GettextCatalog(contentsOf: url, keeping: keeping.contains)
            } catch {
                problems.append(error.description)
                return nil
            }
        }

        var countryCodes: [String: String] = [:]
        for country in countryList {
            for name in [country.name, country.commonName, country.officialName].compactMap({ $0 }) {
                countryCodes[Self.folded(name)] = country.code
            }
        }
        for (name, code) in Self.gazetteerCountryNames where countryCodes[Self.folded(name)] == nil {
            countryCodes[Self.folded(name)] = code
        }
        let knownCodes = Set(countryList.map(\.code))
        countryCodes = countryCodes.filter { knownCodes.contains($0.value) }

        let divisionMsgids = Set(divisionList.map(\.name))
        let english = catalogue("en", "iso_3166-2", keeping: divisionMsgids)
        var divisionNames: [String: [String: String]] = [:]
        for division in divisionList {
            let code = String(division.code.prefix { $0 != "-" })
            var names = [division.name] + Self.bracketed(division.name)
            if let inEnglish = english?[division.name] { names.append(inEnglish) }
            for name in names where divisionNames[code, default: [:]][Self.folded(name)] == nil {
                divisionNames[code, default: [:]][Self.folded(name)] = division.name
            }
        }

        let countryMsgids = Set(countryList.flatMap { [$0.name, $0.commonName, $0.officialName].compactMap { $0 } })
        var countries: [Language: [String: String]] = [:]
        var divisions: [Language: [String: String]] = [:]
        for language in Language.supported where language != .english {
            let folder = language.tag.replacingOccurrences(of: "-", with: "_")
            if let catalogue = catalogue(folder, "iso_3166-1", keeping: countryMsgids) {
                var names: [String: String] = [:]
                for country in countryList {
                    // The short name first; ISO's inverted "Russie, Fédération de" reads in order,
                    // and another name with a comma is passed over: it would read as two places.
                    let translated = [country.commonName, country.name, country.officialName]
                        .compactMap { $0.flatMap { catalogue[$0] }.flatMap(Self.inOrder) }
                        .first
                    if let translated { names[country.code] = translated }
                }
                countries[language] = names
            }
            if let catalogue = catalogue(folder, "iso_3166-2", keeping: divisionMsgids) {
                divisions[language] = catalogue.translations.mapValues { Self.bracketed($0).first ?? $0 }
            }
        }
        self.init(
            countryCodes: countryCodes, divisionNames: divisionNames, countries: countries,
            divisions: divisions, problems: problems)
    }

    /// `name` ("Munich, Bavaria, Germany") in `language`: its last part when that names a country
    /// (or its last two or three, for a country whose name has a comma), and the part before it
    /// when that names a first-level division of the country, each in the language when it has a
    /// name for it; every other part as it is. A name whose end is no known country, and every
    /// name in English, is returned unchanged.
    public func translate(_ name: String, into language: Language) -> String {
        guard language != .english, countries[language] != nil || divisions[language] != nil else { return name }
        var parts = name.components(separatedBy: ", ")
        for width in 1...min(3, parts.count) {
            let tail = parts.suffix(width).joined(separator: ", ")
            guard let code = countryCodes[Self.folded(tail)] else { continue }
            parts.removeLast(width)
            if let division = parts.last, let iso = divisionNames[code]?[Self.folded(division)],
                let translated = divisions[language]?[iso]
            {
                parts[parts.count - 1] = translated
            }
            return (parts + [countries[language]?[code] ?? tail]).joined(separator: ", ")
        }
        return name
    }

    /// The ISO 3166-1 alpha-2 code of the country `name` names ("Germany", "germany", "The
    /// Netherlands", "Curacao"), or nil for a name of no country known.
    public func countryCode(named name: String) -> String? {
        countryCodes[Self.folded(name)]
    }

    /// How many names are kept: countries and divisions known, and translations per language.
    public var counts: (countries: Int, divisions: Int, translations: [Language: Int]) {
        var translations: [Language: Int] = [:]
        for language in Language.supported where language != .english {
            translations[language] = (countries[language]?.count ?? 0) + (divisions[language]?.count ?? 0)
        }
        return (Set(countryCodes.values).count, divisionNames.values.reduce(0) { $0 + $1.count }, translations)
    }

    /// A name compared without case, accents or hyphens: "Île-de-France" is "ile de france".
    static func folded(_ name: String) -> String {
        name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .replacingOccurrences(of: "-", with: " ")
    }

    /// A country's name as it is read: itself when it has no comma; ISO's inverted form, whose
    /// second part ends in a linking word ("Russie, Fédération de", "Corea, República de",
    /// "Réunion, Île de la"), put back in order ("Fédération de Russie"); nil for any other name
    /// with a comma ("Bonaire, Saint-Eustache et Saba").
    static func inOrder(_ name: String) -> String? {
        let parts = name.components(separatedBy: ", ")
        guard parts.count == 2 else { return parts.count == 1 && !name.contains(",") ? name : nil }
        let (head, qualifier) = (parts[0], parts[1])
        if qualifier.hasSuffix("'") || qualifier.hasSuffix("’") { return qualifier + head }
        guard let last = qualifier.split(separator: " ").last, linkingWords.contains(last.lowercased()) else {
            return nil
        }
        return qualifier + " " + head
    }

    /// The words that end the second part of an inverted ISO name, in the supported languages.
    private static let linkingWords: Set<String> = ["of", "the", "de", "del", "du", "des", "la", "do", "da", "dos"]

    /// The names of "Catalunya [Cataluña]": "Catalunya" and "Cataluña"; none for a plain name.
    static func bracketed(_ name: String) -> [String] {
        guard let open = name.firstIndex(of: "["), let close = name.lastIndex(of: "]"), open < close else {
            return []
        }
        let outside = name[..<open].trimmingCharacters(in: .whitespaces)
        let inside = name[name.index(after: open)..<close].trimmingCharacters(in: .whitespaces)
        return [outside, inside].filter { !$0.isEmpty }
    }

    /// The English short names of countries that the offline gazetteer (GeoNames) writes
    /// otherwise than ISO 3166-1 does, by code. Those that differ only in accents or hyphens
    /// ("Curacao", "Timor Leste") need no entry.
    static let gazetteerCountryNames: [String: String] = [
        "Bonaire, Saint Eustatius and Saba": "BQ", "Brunei": "BN", "Cocos Islands": "CC",
        "Democratic Republic of the Congo": "CD", "Falkland Islands": "FK", "Ivory Coast": "CI",
        "Micronesia": "FM", "Palestinian Territory": "PS", "Russia": "RU", "Saint Helena": "SH",
        "Saint Martin": "MF", "Sint Maarten": "SX", "The Netherlands": "NL", "Turkey": "TR",
        "U.S. Virgin Islands": "VI", "Vatican": "VA",
    ]

    private static func read<Value: Decodable>(_ type: Value.Type, _ url: URL) throws(PlaceNamesFileError) -> Value {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw PlaceNamesFileError(file: url.path, problem: "cannot be read (\(error.localizedDescription))")
        }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw PlaceNamesFileError(file: url.path, problem: "is not an iso-codes list (\(error))")
        }
    }
}

/// A list of iso-codes that cannot be read.
struct PlaceNamesFileError: Error, CustomStringConvertible {
    var file: String
    var problem: String
    var description: String { "\(file) \(problem)" }
}

private struct ISOCountries: Decodable {
    var list: [ISOCountry]
    enum CodingKeys: String, CodingKey { case list = "3166-1" }
}

private struct ISOCountry: Decodable {
    var code: String
    var name: String
    var commonName: String?
    var officialName: String?
    enum CodingKeys: String, CodingKey {
        case code = "alpha_2", name, commonName = "common_name", officialName = "official_name"
    }
}

private struct ISODivisions: Decodable {
    var list: [ISODivision]
    enum CodingKeys: String, CodingKey { case list = "3166-2" }
}

private struct ISODivision: Decodable {
    var code: String
    var name: String
    var parent: String?
}
