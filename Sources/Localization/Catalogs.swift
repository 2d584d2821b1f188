import Foundation

/// The catalogues of every supported language, read once.
public struct Catalogs: Sendable {
    /// The English catalogue, the source of every message.
    public let source: MessageCatalog
    public let translations: [Language: MessageCatalog]
    /// The names of countries and their divisions in each language (``Phrasebook/place(_:)``),
    /// read the first time a reader of another language than English needs one.
    public var placeNames: PlaceNames { readPlaceNames() }
    private let readPlaceNames: @Sendable () -> PlaceNames

    public init(source: MessageCatalog, translations: [Language: MessageCatalog], placeNames: PlaceNames = .none) {
        self.init(source: source, translations: translations, placeNamesOnFirstUse: { placeNames })
    }

    /// `placeNamesOnFirstUse` is asked only when a place is named in another language than
    /// English (a class that reads English only never reads them).
    public init(
        source: MessageCatalog, translations: [Language: MessageCatalog],
        placeNamesOnFirstUse: @escaping @Sendable () -> PlaceNames
    ) {
        self.source = source
        self.translations = translations
        self.readPlaceNames = placeNamesOnFirstUse
    }

    /// Reads `<tag>.json` of every supported language from `folder`; places are named with
    /// `placeNames`.
    public init(folder: URL, placeNames: PlaceNames = .none) throws {
        try self.init(folder: folder, placeNamesOnFirstUse: { placeNames })
    }

    /// Reads `<tag>.json` of every supported language from `folder`; places are named with what
    /// `placeNamesOnFirstUse` gives when first needed.
    public init(folder: URL, placeNamesOnFirstUse: @escaping @Sendable () -> PlaceNames) throws {
        func read(_ language: Language) throws -> Data {
            try Data(contentsOf: folder.appendingPathComponent("\(language.tag).json"))
        }
        let source = try MessageCatalog(language: .english, json: read(.english), source: nil)
        var translations: [Language: MessageCatalog] = [:]
        for language in Language.supported where language != .english {
            translations[language] = try MessageCatalog(language: language, json: read(language), source: source)
        }
        self.init(source: source, translations: translations, placeNamesOnFirstUse: placeNamesOnFirstUse)
    }

    /// The resource folder SwiftPM builds beside the executables for this module.
    public static let resourceFolder = "OnTheMapBot_Localization.resources"

    /// The catalogues shipped with the program (``resourceFolder``/Catalogs).
    public static func bundledFolder() throws(ResourceFolderMissing) -> URL {
        try ResourceFolder.locate(resourceFolder, item: "Catalogs", purpose: "the message catalogues of every language")
    }

    /// The shipped catalogues with the installed place names (``PlaceNames/installed``), read on
    /// first use. When the catalogues cannot be read every message is the key it is filed under;
    /// the program checks ``loadBundled()`` at start and refuses to run then. Missing place names
    /// only leave places as stored.
    public static let bundled: Catalogs =
        (try? loadBundled())
        ?? Catalogs(
            source: MessageCatalog(language: .english, messages: [:]), translations: [:],
            placeNamesOnFirstUse: { .installed })

    /// Reads the shipped catalogues, with the installed place names; throws a sentence naming what
    /// is missing or broken in the catalogues.
    public static func loadBundled() throws -> Catalogs {
        try Catalogs(folder: bundledFolder(), placeNamesOnFirstUse: { .installed })
    }

    /// The message filed under `key` in `language`, else in English; nil when no catalogue has it.
    public func message(_ key: String, in language: Language) -> Message? {
        translations[language]?.messages[key] ?? source.messages[key]
    }

    /// The phrasebook of `language`.
    public func phrasebook(_ language: Language) -> Phrasebook {
        Phrasebook(language: language, catalogs: self)
    }
}
