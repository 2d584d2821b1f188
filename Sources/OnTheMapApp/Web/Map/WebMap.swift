import Foundation
import HTTPTypes
import Localization
import Hummingbird
import Logging
import NIOCore
import OnTheMapPlugins
import OnTheMapService

/// The class map on the web: a page with a Map tab (the clusters and pins of its viewport over an
/// offline Natural Earth outline) and a Table tab (the class, a page at a time), and every pin as
/// `/api/locations.json`. Everything it needs is served from here; nothing is fetched elsewhere,
/// unless a ``MapTileLayer`` is configured: then the page draws that service's tiles while they
/// load, and the Content-Security-Policy lets images come from that origin too.
///
/// Routes: `/` and `/map` (the page; `?focus=<lat>,<lon>` or `?focus=<place>` centres it),
/// `/map/app.js`, `/map/layers.js`, `/map/tiles.js`, `/map/posting.js`, `/map/text.js`, `/map/app.css`, `/map/basemap.json`,
/// `/map/places.json` (city labels from the gazetteer, see ``MapPlaceLabels``), `/manifest.webmanifest`,
/// `/sw.js` and the icons `/map/icon.svg`, `/map/icon-192.png`, `/map/icon-512.png` (``InstallableApp``),
/// `/map/detail/<column>-<row>.json` (finer outlines at city zoom, ``MapDetailCells``), `/api/locations.json`,
/// and what the page reads instead of every pin: `/api/map/view.json`, `/api/map/names.json` and
/// `/api/map/table.json` (``addViewRoutes(to:)``, from ``MapViewIndex``).
///
/// With ``StudentScenes`` (when the class's v1 API is served beside it) the page also lets a
/// student log in, put themselves on the map and log out (`posting.js`, over `/v1`).
///
/// The page and its scenes are written in the reader's language (``WebLanguages``: a signed-in
/// student's `!lang`, the page's language menu, the browser's `Accept-Language`, the configured
/// default), every word from the message catalogues (`web.page.*`, ``WebPageText``); `POST /language`
/// is the menu's (it keeps the choice in the `lang` cookie).
///
/// Who may read the pins is ``MapAccess``'s (`web.visibility`): on a class map,
/// `/api/locations.json` needs a signed-in browser, and `/signin` opens the sign-in links the bot
/// gives out on IRC (``SignInPage``). A student's own pin and trips are under `/me/` (``OwnDataFeeds``).
public struct WebMap: Sendable {
    /// The static files of the page, read once from the bundle.
    public struct Assets: Sendable {
        public var page: String
        public var script: Data
        /// The layers drawn at city zoom: labels of cities (`layers.js`).
        public var layers: Data
        /// The XYZ tile layer and its Web Mercator projection (`tiles.js`).
        public var tiles: Data
        /// The log-in and posting scenes (`posting.js`).
        public var posting: Data
        /// The page's words by catalogue key, for every script of the map and sign-in pages (`text.js`).
        public var text: Data
        /// The page of a sign-in link and its script (`signin.html`, `signin.js`).
        public var signInPage: Data
        public var signInScript: Data
        public var style: Data
        public var basemap: Data
        /// The folder of the city-zoom outline cells (``MapDetailCells``), read cell by cell when asked for.
        public var detailFolder: URL
        /// The service worker that keeps the page for offline use (`sw.js`, its version filled in
        /// by ``WebMap``), and the installed app's icons (`icon.svg`, `icon-192.png`, `icon-512.png`).
        public var serviceWorker: Data
        public var icon: Data
        public var icon192: Data
        public var icon512: Data

        /// The resource folder SwiftPM builds for this module, which holds the `Assets` folder.
        public static let resourceFolder = "OnTheMapBot_OnTheMapApp.resources"

        /// Where the page's files are, or an error naming the missing folder and where it was looked for.
        public static func bundledFolder() throws(ResourceFolderMissing) -> URL {
            try ResourceFolder.locate(resourceFolder, item: "Assets", purpose: "the web map's page, script and basemap")
        }

        /// The files shipped in the module's `Web/Map/Assets` folder (the detail cells are only
        /// checked to be there: they are read when asked for).
        public static func bundled() throws -> Assets {
            let folder = try bundledFolder()
            func read(_ name: String) throws -> Data {
                try Data(contentsOf: folder.appendingPathComponent(name))
            }
            let detail = folder.appendingPathComponent("detail")
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: detail.path, isDirectory: &isFolder), isFolder.boolValue else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: detail.path])
            }
            return Assets(
                page: String(decoding: try read("index.html"), as: UTF8.self), script: try read("app.js"),
                layers: try read("layers.js"), tiles: try read("tiles.js"), posting: try read("posting.js"),
                text: try read("text.js"),
                signInPage: try read("signin.html"), signInScript: try read("signin.js"), style: try read("app.css"),
                basemap: try read("basemap.json"),
                detailFolder: detail, serviceWorker: try read("sw.js"), icon: try read("icon.svg"),
                icon192: try read("icon-192.png"), icon512: try read("icon-512.png"))
        }

        /// Bytes a browser downloads for one view of the page (HTML, scripts, style, basemap).
        public var pageWeight: Int {
            page.utf8.count + script.count + layers.count + tiles.count + posting.count + text.count + style.count
                + basemap.count
        }
    }

    /// The pin at the centre of a focused map.
    public struct Focus: Sendable, Equatable {
        public var coordinate: Coordinate
        public var label: String
    }

    /// What the page's student scenes need to know, when the v1 API is served beside the map.
    public struct StudentScenes: Sendable, Equatable {
        /// Where the log-in scene sends someone without an account (empty: "ask your instructor").
        public var signupURL: String
        /// Whether the log-in scene offers its password form (`plugins.login.passwords`); without
        /// it, students sign in with the link the bot gives them privately.
        public var passwords: Bool

        public init(signupURL: String = "", passwords: Bool = true) {
            self.signupURL = signupURL
            self.passwords = passwords
        }
    }

    let feed: MapPinFeed
    let geocoder: any Geocoder
    let assets: Assets
    let pollSeconds: Int
    let scenes: StudentScenes?
    let placeLabels: MapPlaceLabels
    let tileLayer: MapTileLayer?
    let access: MapAccess
    let securityHeaders: HTTPFields
    let languages: WebLanguages
    let logger: Logger
    /// The scripts, style and basemap as gzip, compressed once (a file zlib failed on is absent).
    let gzippedAssets: [String: ByteBuffer]
    /// Where students reach the page (`web.public_url`): the page's Open Graph address and its
    /// picture's (`<public_url>/map.png`); nil: the page names no address of its own.
    let publicURL: String?
    /// The map's pictures (`/map.png`), drawn once per change of the class.
    let pictures: MapPictureCache
    /// `sw.js` with the version of the page's files filled in (``InstallableApp``).
    let serviceWorker: ByteBuffer
    /// What a student's own data feeds read of places (``OwnDataFeeds``).
    let ownDataPlaces: OwnDataFeeds.Places

    /// `pollSeconds`: how often an open page asks for new pins; `scenes`: offer log-in and posting
    /// (only when the v1 API is served on the same listener); `placeLabels`: where city labels come
    /// from (none by default); `tiles`: an XYZ tile service the
    /// page draws while it can reach it (`web.tiles`; nil: the offline map only); `access`: who may
    /// read the pins (`web.visibility`), and how a browser signs in; `languages`: which language
    /// each page is written in (``WebLanguages``); `publicURL`: the page's address as students reach
    /// it (`web.public_url`), which its link-preview tags name; `ownDataPlaces`: the levels and
    /// time zones of places, for a student's own data feeds (``OwnDataFeeds``).
    public init(
        feed: MapPinFeed, geocoder: any Geocoder, assets: Assets, access: MapAccess, pollSeconds: Int = 15,
        scenes: StudentScenes? = nil, placeLabels: MapPlaceLabels? = nil, tiles: MapTileLayer? = nil,
        languages: WebLanguages = WebLanguages(), publicURL: String? = nil,
        ownDataPlaces: OwnDataFeeds.Places = .unknown, logger: Logger
    ) {
        self.ownDataPlaces = ownDataPlaces
        self.feed = feed
        self.geocoder = geocoder
        self.assets = assets
        self.pollSeconds = max(2, pollSeconds)
        self.scenes = scenes
        self.placeLabels = placeLabels ?? .none
        self.tileLayer = tiles
        self.access = access
        self.securityHeaders = Self.securityHeaders(imageOrigin: tiles?.origin)
        self.languages = languages
        self.logger = logger
        var gzipped: [String: ByteBuffer] = [:]
        for (name, body) in [
            ("app.js", assets.script), ("layers.js", assets.layers), ("tiles.js", assets.tiles),
            ("posting.js", assets.posting), ("text.js", assets.text), ("app.css", assets.style),
            ("basemap.json", assets.basemap),
        ] {
            gzipped[name] = HTTPCompression.gzip(ByteBuffer(bytes: body))
        }
        self.gzippedAssets = gzipped
        self.publicURL = publicURL.flatMap { $0.isEmpty ? nil : $0 }
        let outline: BasemapOutline
        do {
            outline = try BasemapOutline(basemapJSON: assets.basemap)
        } catch {
            logger.error("the map's picture has no basemap", metadata: ["error": "\(error)"])
            outline = BasemapOutline.none
        }
        self.pictures = MapPictureCache(outline: outline)
        self.serviceWorker = InstallableApp.serviceWorker(assets)
    }

    /// Reads the class and builds the map's viewport index once the listener starts, so that the
    /// first page after a start finds it built; logs "map view ready" with the pins and the time
    /// taken. A class that cannot be read now is read again by the first page.
    func prepare() async {
        let clock = ContinuousClock()
        let started = clock.now
        do {
            let pins = try await feed.prepareView()
            let seconds = BotControl.seconds(started.duration(to: clock.now))
            logger.info(
                "map view ready", metadata: ["pins": "\(pins)", "seconds": "\(String(format: "%.2f", seconds))"])
        } catch is CancellationError {
        } catch {
            logger.warning(
                "the map view is built by the first page: the class could not be read",
                metadata: ["error": "\(error)"])
        }
    }

    /// The page's static file `name` (`body`), gzip-compressed when the request accepts it.
    func asset(_ name: String, _ body: Data, type: String, cache: String, request: Request) -> Response {
        var response = respond(body, type: type, cache: cache)
        response.headers[.vary] = "Accept-Encoding"
        if HTTPCompression.acceptsGzip(request), let gzipped = gzippedAssets[name] {
            response.headers[.contentEncoding] = "gzip"
            response.body = .init(byteBuffer: gzipped)
        }
        return response
    }

    /// Only this origin (and for images the tile service's, `imageOrigin`, when one is configured),
    /// the web app manifest and the service worker included; no inline code; no frames.
    static func securityHeaders(imageOrigin: String?) -> HTTPFields {
        let images = "'self' data:" + (imageOrigin.map { " \($0)" } ?? "")
        return [
            .contentSecurityPolicy:
                "default-src 'none'; script-src 'self'; style-src 'self'; img-src \(images); "
                + "connect-src 'self'; manifest-src 'self'; worker-src 'self'; "
                + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
            .xContentTypeOptions: "nosniff",
        ]
    }

    /// Adds the map's routes to `router`.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        let map = self
        let pageHandler: @Sendable (Request, Context) async throws -> Response = { request, _ in
            let language = await map.languages.pageLanguage(of: request, accounts: map.access.accounts)
            let text = WebPageText(phrases: map.languages.catalogs.phrasebook(language))
            let focus = await map.resolveFocus(request.uri.queryParameters.get("focus"), phrases: text.phrases)
            return map.respond(
                Data(map.renderPage(focus: focus, text: text).utf8), type: "text/html; charset=utf-8",
                cache: "no-store", language: language)
        }
        router.get("/", use: pageHandler)
        router.get("map", use: pageHandler)
        router.get("map/app.js") { request, _ in
            map.asset(
                "app.js", map.assets.script, type: "text/javascript; charset=utf-8", cache: "max-age=300",
                request: request)
        }
        router.get("map/layers.js") { request, _ in
            map.asset(
                "layers.js", map.assets.layers, type: "text/javascript; charset=utf-8", cache: "max-age=300",
                request: request)
        }
        router.get("map/tiles.js") { request, _ in
            map.asset(
                "tiles.js", map.assets.tiles, type: "text/javascript; charset=utf-8", cache: "max-age=300",
                request: request)
        }
        router.get("map/places.json") { request, _ in
            let query = request.uri.queryParameters
            return await map.placesResponse(bbox: query.get("bbox"), limit: query.get("limit"))
        }
        router.get("map/detail/:cell") { _, context in
            map.detailResponse(cell: context.parameters.get("cell"))
        }
        router.get("map/text.js") { request, _ in
            map.asset(
                "text.js", map.assets.text, type: "text/javascript; charset=utf-8", cache: "max-age=300",
                request: request)
        }
        router.get("map/posting.js") { request, _ in
            map.asset(
                "posting.js", map.assets.posting, type: "text/javascript; charset=utf-8", cache: "max-age=300",
                request: request)
        }
        router.get("map/app.css") { request, _ in
            map.asset(
                "app.css", map.assets.style, type: "text/css; charset=utf-8", cache: "max-age=300", request: request)
        }
        router.get("map/basemap.json") { request, _ in
            map.asset(
                "basemap.json", map.assets.basemap, type: "application/json", cache: "max-age=86400", request: request)
        }
        router.get("api/locations.json") { request, _ in
            let phrases = WebLanguages.answerPhrases(for: request)
            do {
                guard try await map.access.mayReadPins(request) else { return map.signedOutResponse(phrases) }
            } catch {
                return map.unavailableResponse(error, phrases)
            }
            return await map.locationsResponse(since: request.uri.queryParameters.get("since"), phrases: phrases)
        }
        addViewRoutes(to: router)
        addPictureRoute(to: router)
        addAppRoutes(to: router)
        router.post("language") { request, _ in await map.chooseLanguage(request) }
        SignInPage(
            access: access, page: String(decoding: assets.signInPage, as: UTF8.self), script: assets.signInScript,
            securityHeaders: securityHeaders, languages: languages, logger: logger
        ).addRoutes(to: router)
        OwnDataFeeds(
            links: access.dataFeeds, accounts: access.accounts, places: ownDataPlaces, languages: languages,
            now: { Date() }, logger: logger
        ).addRoutes(to: router)
    }

    /// The most bytes read of the language menu's form (`lang=pt-BR`).
    static let maximumLanguageFormBytes = 256

    /// `POST /language` with the form `lang=<tag>` (the page's language menu): keeps one of the
    /// supported languages as this browser's choice (the `lang` cookie) and goes back to the map
    /// (303); any other value is refused (400, one sentence) and sets nothing. A signed-in student
    /// who chose another language with `!lang` reads that one whatever the menu says: the menu
    /// refuses (409) with the sentence that says how to change it on IRC, and sets nothing.
    /// A request another site sent (`Sec-Fetch-Site` other than `same-origin` or `none`) is refused
    /// (403) and sets nothing.
    func chooseLanguage(_ request: Request) async -> Response {
        // Another site's form must not change a visitor's language: browsers say where a request
        // comes from (Sec-Fetch-Site); one from another site is refused and sets nothing.
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin", site != "none" {
            let language = await languages.pageLanguage(of: request, accounts: access.accounts)
            let sentence = languages.catalogs.phrasebook(language)("web.language.crossSite")
            return respond(
                Data(sentence.utf8), type: "text/plain; charset=utf-8", cache: "no-store", status: .forbidden,
                language: language)
        }
        var request = request
        let form = try? await request.collectBody(upTo: Self.maximumLanguageFormBytes)
        let value = form.flatMap { buffer in
            URLComponents(string: "?" + String(decoding: buffer.readableBytesView, as: UTF8.self))?
                .queryItems?.first(where: { $0.name == "lang" })?.value
        }
        guard let value, let chosen = WebLanguages.menuLanguage(value) else {
            let language = await languages.pageLanguage(of: request, accounts: access.accounts)
            let phrases = languages.catalogs.phrasebook(language)
            let sentence = phrases("web.language.unknown")
            return respond(
                Data(sentence.utf8), type: "text/plain; charset=utf-8", cache: "no-store", status: .badRequest,
                language: language)
        }
        if let own = await languages.studentChoice(of: request, accounts: access.accounts), own != chosen {
            let phrases = languages.catalogs.phrasebook(own)
            let sentence = phrases("web.language.chosenOnIRC", ["language": own.nativeName])
            return respond(
                Data(sentence.utf8), type: "text/plain; charset=utf-8", cache: "no-store", status: .conflict,
                language: own)
        }
        var headers = securityHeaders
        headers[.cacheControl] = "no-store"
        headers[.location] = "map"
        headers.append(
            HTTPField(name: .setCookie, value: WebLanguages.cookie(for: chosen, secure: access.secureCookies)))
        return Response(status: .seeOther, headers: headers)
    }

    /// 401 with the sentence that says how to sign in (a class map, a signed-out request).
    func signedOutResponse(_ phrases: Phrasebook = .english) -> Response {
        let message = Self.jsonString(access.signInSentence(loginForm: scenes != nil, phrases: phrases))
        return respond(
            Data("{\"error\":\(message)}".utf8), type: "application/json", cache: "no-store", status: .unauthorized,
            language: phrases.language)
    }

    /// 503: the directory could not be asked (the cause logged, not shown).
    func unavailableResponse(_ error: any Error, _ phrases: Phrasebook = .english) -> Response {
        logger.warning("web map could not read the pins", metadata: ["error": "\(error)"])
        let message = Self.jsonString(phrases("web.map.unavailable"))
        return respond(
            Data("{\"error\":\(message)}".utf8), type: "application/json", cache: "no-store",
            status: .serviceUnavailable, language: phrases.language)
    }

    /// Every pin, or with `since` only what changed after that cursor (every pin again when the
    /// cursor is too old or from before a restart; 400 when it is not a cursor at all).
    func locationsResponse(since: String? = nil, phrases: Phrasebook = .english) async -> Response {
        do {
            let document: MapDocumentWriter
            if let since {
                switch try await feed.changes(since: since) {
                case .changed(let changed, let removed, let cursor):
                    document = MapDocumentWriter(
                        pins: changed,
                        shape: .changes(since: since, cursor: cursor, count: changed.store.count, removed: removed))
                case .everything(let pins, let cursor):
                    document = MapDocumentWriter(pins: pins, shape: .document(cursor: cursor))
                }
            } else {
                let (pins, cursor) = try await feed.everything()
                document = MapDocumentWriter(pins: pins, shape: .document(cursor: cursor))
            }
            var headers = securityHeaders
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "no-store"
            // Sent piece by piece as it is written: the class's JSON is never whole in memory.
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { [document] writer in
                    var pieces = document
                    while let piece = pieces.nextPiece() { try await writer.write(piece) }
                    try await writer.finish(nil)
                })
        } catch is MapPinFeed.BadCursor {
            let message = Self.jsonString(phrases("web.map.badCursor"))
            return respond(
                Data("{\"error\":\(message)}".utf8), type: "application/json", cache: "no-store", status: .badRequest,
                language: phrases.language)
        } catch {
            return unavailableResponse(error, phrases)
        }
    }

    /// An answer; with `language`, one whose words are in that language, chosen by the request's
    /// `Accept-Language` and cookies (`Content-Language`, `Vary`).
    func respond(
        _ body: Data, type: String, cache: String, status: HTTPResponse.Status = .ok, language: Language? = nil
    ) -> Response {
        respond(ByteBuffer(bytes: body), type: type, cache: cache, status: status, language: language)
    }

    func respond(
        _ body: ByteBuffer, type: String, cache: String, status: HTTPResponse.Status = .ok, language: Language? = nil
    ) -> Response {
        var headers = securityHeaders
        headers[.contentType] = type
        headers[.cacheControl] = cache
        if let language { headers.append(contentsOf: WebLanguages.languageHeaders(language, varyOnCookie: true)) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    /// `"<lat>,<lon>"` as numbers, or else a place name resolved like `!post` resolves it (a near
    /// match is labelled "Did you mean …?"); nil when neither gives a point.
    func resolveFocus(_ raw: String?, phrases: Phrasebook = .english) async -> Focus? {
        guard let raw else { return nil }
        let text = raw.replacingOccurrences(of: "+", with: " ").trimmingCharacters(
            in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.count <= 200 else { return nil }
        if let coordinate = Self.parseCoordinate(text) {
            return Focus(coordinate: coordinate, label: text)
        }
        do {
            switch try await PlaceResolver(geocoder: geocoder).resolve(text) {
            case .found(let place, _):
                return Focus(coordinate: place.coordinate, label: place.displayName)
            case .offered(let offers):
                // A near match is shown as a question, never as the place asked for.
                return Focus(
                    coordinate: offers[0].coordinate,
                    label: phrases("web.page.focus.didYouMean", ["place": offers[0].displayName]))
            case .notAPlace, .notFound:
                return nil
            }
        } catch {
            logger.debug("focus place not found", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// "12.5,-70.25" (spaces allowed) when both numbers are a valid point.
    static func parseCoordinate(_ text: String) -> Coordinate? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2,
            let latitude = Double(parts[0].trimmingCharacters(in: .whitespaces)),
            let longitude = Double(parts[1].trimmingCharacters(in: .whitespaces))
        else { return nil }
        let coordinate = Coordinate(latitude: latitude, longitude: longitude)
        return coordinate.isValid ? coordinate : nil
    }

    /// The page with its placeholders filled in, its words in `text`'s language (English when not
    /// given); everything put in it is HTML-escaped.
    func renderPage(focus: Focus?, text: WebPageText? = nil) -> String {
        let text = text ?? WebPageText(phrases: languages.catalogs.phrasebook(.english))
        var attributes = "data-poll-seconds=\"\(pollSeconds)\" data-visibility=\"\(access.visibility.rawValue)\""
        if let scenes {
            attributes += " data-api=\"on\" data-signup-url=\"\(Self.escapeHTML(scenes.signupURL))\""
            if !scenes.passwords { attributes += " data-passwords=\"off\"" }
        }
        if let focus {
            attributes +=
                " data-focus-lat=\"\(focus.coordinate.latitude)\""
                + " data-focus-lon=\"\(focus.coordinate.longitude)\""
                + " data-focus-label=\"\(Self.escapeHTML(focus.label))\""
        }
        if let tileLayer {
            attributes +=
                " data-tiles-url=\"\(Self.escapeHTML(tileLayer.template))\""
                + " data-tiles-attribution=\"\(Self.escapeHTML(tileLayer.attribution))\""
        }
        // The catalogue's words first: nothing filled in after them (a focus label, the tile
        // service's attribution) is read for `{{t:…}}`.
        let worded = text.render(
            assets.page, values: ["count": TableRows.count],
            markup: [
                "place": "<strong id=\"link-place\"></strong>",
                "naturalEarth":
                    "<a href=\"https://www.naturalearthdata.com/\" rel=\"noopener noreferrer\">Natural Earth</a>",
                "gshhg":
                    "<a href=\"https://www.soest.hawaii.edu/pwessel/gshhg/\" rel=\"noopener noreferrer\">GSHHG</a>",
            ])
        return
            worded
            .replacingOccurrences(of: "{{LANG}}", with: text.language.tag)
            .replacingOccurrences(of: "{{LANGUAGE_OPTIONS}}", with: text.languageOptions())
            .replacingOccurrences(of: "{{PAGE_TEXT}}", with: text.scriptBlock(prefixes: ["web.page."]))
            .replacingOccurrences(of: "{{APP_ATTRIBUTES}}", with: attributes)
            .replacingOccurrences(of: "{{PREVIEW_TAGS}}", with: previewTags(text: text))
    }

    /// The Open Graph and Twitter card tags a chat client's link preview reads: the page's title,
    /// a sentence on what the map shows to whoever opens it (a class-only map says its pins are
    /// for the class), and, with a public address, the page's and its picture's (`/map.png`).
    func previewTags(text: WebPageText) -> String {
        let phrases = text.phrases
        let classOnly = access.visibility == .class
        var tags: [(String, String, String)] = [
            ("property", "og:type", "website"),
            ("property", "og:site_name", "On The Map"),
            ("property", "og:title", phrases("web.page.title")),
            (
                "property", "og:description",
                phrases(classOnly ? "web.preview.description.class" : "web.preview.description.public")
            ),
            ("property", "og:locale", text.language.tag.replacingOccurrences(of: "-", with: "_")),
        ]
        if let publicURL {
            tags += [
                ("property", "og:url", MapPlugin.root(of: publicURL) + "/"),
                ("property", "og:image", MapPlugin.pictureLink(base: publicURL)),
                ("property", "og:image:type", Self.pictureType),
                ("property", "og:image:width", "\(MapPicture.width)"),
                ("property", "og:image:height", "\(MapPicture.height)"),
                ("property", "og:image:alt", phrases(classOnly ? "web.preview.alt.class" : "web.preview.alt.public")),
                ("name", "twitter:card", "summary_large_image"),
            ]
        }
        return tags.map { attribute, name, content in
            "<meta \(attribute)=\"\(Self.escapeHTML(name))\" content=\"\(Self.escapeHTML(content))\">"
        }.joined(separator: "\n")
    }

    /// How many posts the Table tab lists (app.js keeps to the same number).
    enum TableRows {
        static let count = 100
    }

    /// Text safe inside HTML element content and quoted attribute values.
    public static func escapeHTML(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    static func jsonString(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"error\"".utf8)
        return String(decoding: data, as: UTF8.self)
            .replacingOccurrences(of: "<", with: "\\u003c").replacingOccurrences(of: ">", with: "\\u003e")
    }
}
