import Foundation
import Hummingbird
import Localization
import NIOCore

/// The class map as an installable web app that stays readable offline:
///
/// - `GET /manifest.webmanifest` (`application/manifest+json`): its name, the reader's language,
///   the map as start page, the whole listener as scope, and the icons `/map/icon.svg`,
///   `/map/icon-192.png` and `/map/icon-512.png` (the last also maskable).
/// - `GET /sw.js`: the service worker (`Assets/sw.js`), at the root so that its scope covers the
///   page at `/` and `/map` and the data under `/api`. It keeps the page's shell (the page, its
///   scripts, style, basemap and icons, and the city-zoom outlines and labels once seen) in a cache
///   named after ``version(of:)``, so a new bot replaces it, and the pins' answers (`/api/map/…`,
///   `/api/locations.json`) network-first in a cache of their own, shown with "as of" when the
///   network fails; a 401 empties that cache, as do the page's sign-in and sign-out.
///
/// The Content-Security-Policy allows both (`manifest-src 'self'; worker-src 'self'`).
enum InstallableApp {
    static let name = "On The Map"
    /// The page's theme (the header bar) and background colours.
    static let themeColor = "#02739a"
    static let backgroundColor = "#f4f6f8"

    /// The web app manifest in the language of `phrases`; its URLs are relative to the manifest's
    /// own, so the app works under whatever path a reverse proxy serves the bot at.
    static func manifest(_ phrases: Phrasebook) -> Data {
        struct Icon: Encodable {
            var src: String
            var sizes: String
            var type: String
            var purpose: String
        }
        struct Manifest: Encodable {
            var id = "map"
            var name = InstallableApp.name
            var short_name = InstallableApp.name
            var description: String
            var lang: String
            var dir = "ltr"
            var start_url = "map"
            var scope = "./"
            var display = "standalone"
            var theme_color = InstallableApp.themeColor
            var background_color = InstallableApp.backgroundColor
            var icons = [
                Icon(src: "map/icon.svg", sizes: "any", type: "image/svg+xml", purpose: "any"),
                Icon(src: "map/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any"),
                Icon(src: "map/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any"),
                Icon(src: "map/icon-512.png", sizes: "512x512", type: "image/png", purpose: "maskable"),
            ]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let manifest = Manifest(
            description: phrases("web.page.manifest.description"), lang: phrases.language.tag)
        return (try? encoder.encode(manifest)) ?? Data("{}".utf8)
    }

    /// A short fingerprint of every file the worker keeps as the page's shell (FNV-1a, 64 bits, in
    /// hex): a bot whose page changed serves a worker with another version, which browsers install
    /// in place of the old one, dropping its cache.
    static func version(of assets: WebMap.Assets) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let files = [
            Data(assets.page.utf8), assets.script, assets.layers, assets.tiles, assets.posting, assets.text,
            assets.style, assets.basemap, assets.serviceWorker, assets.icon, assets.icon192, assets.icon512,
        ]
        for file in files {
            for byte in file {
                hash ^= UInt64(byte)
                hash &*= 0x100_0000_01b3
            }
            hash ^= 0xff
            hash &*= 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// `sw.js` with its version filled in.
    static func serviceWorker(_ assets: WebMap.Assets) -> ByteBuffer {
        let source = String(decoding: assets.serviceWorker, as: UTF8.self)
        return ByteBuffer(string: source.replacingOccurrences(of: "{{VERSION}}", with: version(of: assets)))
    }
}

extension WebMap {
    /// The manifest, the service worker and the icons (``InstallableApp``).
    func addAppRoutes<Context: RequestContext>(to router: Router<Context>) {
        let map = self
        router.get("manifest.webmanifest") { request, _ in
            let language = await map.languages.pageLanguage(of: request, accounts: map.access.accounts)
            return map.respond(
                InstallableApp.manifest(map.languages.catalogs.phrasebook(language)),
                type: "application/manifest+json", cache: "no-cache", language: language)
        }
        // Browsers check the worker for a new version on each visit: never from a cache.
        router.get("sw.js") { _, _ in
            map.respond(map.serviceWorker, type: "text/javascript; charset=utf-8", cache: "no-cache")
        }
        router.get("map/icon.svg") { _, _ in
            map.respond(map.assets.icon, type: "image/svg+xml", cache: "max-age=86400")
        }
        router.get("map/icon-192.png") { _, _ in
            map.respond(map.assets.icon192, type: "image/png", cache: "max-age=86400")
        }
        router.get("map/icon-512.png") { _, _ in
            map.respond(map.assets.icon512, type: "image/png", cache: "max-age=86400")
        }
    }
}
