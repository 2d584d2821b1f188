import BotTesting
import Foundation
import Testing

@testable import OnTheMapApp

/// The class map's link preview through the built `onthemap-bot`, as a chat client makes one (The
/// Lounge's prefetch): a plain GET of the page, its `og:image` read from the HTML, a GET of that
/// address, a PNG of the announced size that decodes and shows the class (drawn from the index the
/// bot built at start).
@Suite(.tags(.startsProcesses), .serialized) struct MapPictureLiveTests {
    @Test(.timeLimit(.minutes(3))) func aLinkPreviewFindsTheMapsPicture() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        let folder = try TemporaryDirectory(prefix: "map-picture-live")
        try await NgircdServer.withRunning { server in
            let webPort = try await FreePort.pick()
            let config = folder.file("bot.yaml")
            try """
            irc:
              server: 127.0.0.1
              port: \(server.tlsPort)
              tls_ca_file: \(server.certificate.certificatePath)
              nick: PictureBot
              channels: ["#class"]
            service:
              backend: local
              database: \(folder.file("class.sqlite"))
            web:
              enabled: true
              listen: 127.0.0.1:\(webPort)
              public_url: http://127.0.0.1:\(webPort)/
              visibility: public
            """.write(toFile: config, atomically: true, encoding: .utf8)
            // Forty students in Tura, in the middle of Siberia, and one in Hilo.
            var csv = "uniqueKey,firstName,lastName,mapString,mediaURL,latitude,longitude\n"
            for number in 0..<40 {
                csv +=
                    "tura\(number),Tura\(number),Student,\"Tura, Russia\",https://tura\(number).example,64.27,100.22\n"
            }
            csv += "hilo,Lone,Student,\"Hilo, Hawaii\",https://hilo.example,19.72,-155.08\n"
            let pins = folder.file("class.csv")
            try csv.write(toFile: pins, atomically: true, encoding: .utf8)
            let imported = try await runCommand(
                executable, ["pins", "import", "--config", config, "--precision", "exact", pins])
            #expect(imported.contains("Imported 41 pins"), "\(imported)")

            let bot = try BotProcess(executable: executable, config: config, log: folder.file("bot.log"))
            defer { bot.kill() }
            try await bot.waitForLog("web map listener up", timeout: .seconds(60))
            // The map's index is built at start, before any page asks for it, from the whole class.
            let ready = try await bot.waitForLog("map view ready", timeout: .seconds(60))
            #expect(ready.contains("pins=41"), "\(ready)")

            // The page, as a preview fetcher asks for it: no cookie, no script run.
            let agent = "Mozilla/5.0 (compatible; link-preview)"
            let page = try await runCommand(
                "/usr/bin/curl", ["-s", "-m", "20", "-A", agent, "http://127.0.0.1:\(webPort)/"])
            let tag = try #require(
                page.firstMatch(of: /<meta property="og:image" content="([^"]+)">/), "no og:image in the page")
            let address = String(tag.1)
            #expect(address == "http://127.0.0.1:\(webPort)/map.png")
            #expect(page.contains("<meta property=\"og:image:width\" content=\"1200\">"))
            #expect(page.contains("<meta property=\"og:image:height\" content=\"630\">"))
            #expect(page.contains("<meta name=\"twitter:card\" content=\"summary_large_image\">"))

            let file = folder.file("preview.png")
            let fetched = try await runCommand(
                "/usr/bin/curl",
                ["-s", "-m", "30", "-A", agent, "-o", file, "-w", "%{http_code} %{content_type}", address])
            #expect(fetched == "200 image/png", "\(fetched)")
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            // The header a preview reads first: the signature, then IHDR's width and height.
            #expect(Array(data.prefix(8)) == PNGReader.signature)
            #expect(PNGReader.number([UInt8](data), at: 16) == 1200 && PNGReader.number([UInt8](data), at: 20) == 630)
            let picture = try PNGReader(data)
            #expect(picture.width == 1200 && picture.height == 630)
            // The class is on it: Tura's cluster where the page draws it, Hilo's pin.
            let tura = MapPictureTests.pixel(of: .init(latitude: 64.27, longitude: 100.22))
            #expect(picture.colour(x: tura.x, y: tura.y + 12) == MapPictureTests.clusterOverLand)
            let hilo = MapPictureTests.pixel(of: .init(latitude: 19.72, longitude: -155.08))
            #expect(picture.colour(x: hilo.x, y: hilo.y - 14) == MapPictureTests.pinHead)
            #expect(data.count < 200_000, "\(data.count) bytes")
        }
    }
}
