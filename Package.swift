// swift-tools-version: 6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6)
]

let package = Package(
    name: "OnTheMapBot",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "onthemap-bot", targets: ["OnTheMapBotCLI"]),
        .executable(name: "onthemap-bench", targets: ["Benchmarks"]),
        .executable(name: "onthemap-load", targets: ["LoadTool"]),
    ],
    // The optional backends, both on by default (the package and the release have them). A build
    // without one compiles neither its module nor its dependency, and a config that asks for it is
    // refused with a sentence (exit status 78): `swift build --disable-default-traits` for the
    // SQLite directory and the offline gazetteer only, `--traits postgres` for one of them.
    traits: [
        .trait(name: "postgres", description: "The PostgreSQL directory (PostgresDirectory, PostgresNIO)."),
        .trait(
            name: "udacity",
            description:
                "The Udacity-compatible HTTP directory and the Nominatim geocoder (HTTPBackends, AsyncHTTPClient)."),
        .default(enabledTraits: ["postgres", "udacity"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // MARK: Build information — the git commit of the build, for `--version` and CTCP VERSION.
        .plugin(name: "BuildCommitPlugin", capability: .buildTool()),
        .target(name: "BuildInfo", swiftSettings: swiftSettings, plugins: ["BuildCommitPlugin"]),

        // MARK: IRC — pure protocol (no I/O) and the NIO/TLS client.
        .target(name: "IRCProtocol", swiftSettings: swiftSettings),
        .target(
            name: "IRCClient",
            dependencies: [
                "IRCProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Languages — the message catalogues of every language, plural rules, numbers and
        // dates the reader's way; below everything that says something to a person.
        .target(
            name: "Localization",
            resources: [.copy("Catalogs")],
            swiftSettings: swiftSettings
        ),

        // MARK: Service layer — knows nothing of IRC.
        .target(
            name: "OnTheMapService",
            dependencies: [
                "Localization",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            resources: [.copy("Geocoding/Resources/gazetteer.tsv")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SQLiteDirectory",
            dependencies: [
                "OnTheMapService", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PostgresDirectory",
            dependencies: [
                "OnTheMapService",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HTTPBackends",
            dependencies: [
                "OnTheMapService",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Plugin host and the application.
        .target(
            name: "BotKit",
            dependencies: [
                "IRCProtocol", "Localization",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .systemLibrary(name: "CGlibcMalloc", path: "Sources/CGlibcMalloc"),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        // MARK: The class — its map, pins, students and their sessions, the state kept between
        // commands and the privacy rules on them; what the commands and the web map both read.
        .target(
            name: "ClassKit",
            dependencies: [
                "BotKit", "OnTheMapService", "IRCProtocol", "Localization",
                .target(name: "CGlibcMalloc", condition: .when(platforms: [.linux])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "OnTheMapPlugins",
            dependencies: [
                "BotKit", "ClassKit", "OnTheMapService", "IRCProtocol", "Localization",
                .target(name: "CGlibcMalloc", condition: .when(platforms: [.linux])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "OnTheMapApp",
            dependencies: [
                "BuildInfo", "IRCProtocol", "IRCClient", "BotKit", "OnTheMapService", "ClassKit", "OnTheMapPlugins",
                "SQLiteDirectory", "Localization", "CZlib",
                .target(name: "CGlibcMalloc", condition: .when(platforms: [.linux])),
                .target(name: "PostgresDirectory", condition: .when(traits: ["postgres"])),
                .target(name: "HTTPBackends", condition: .when(traits: ["udacity"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            resources: [.copy("Web/Map/Assets")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "OnTheMapBotCLI",
            dependencies: ["OnTheMapApp"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "Benchmarks",
            dependencies: [
                "IRCProtocol", "OnTheMapService", "SQLiteDirectory", "PostgresDirectory",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "LoadTool",
            dependencies: [
                "IRCProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Fuzz targets (libFuzzer with `scripts/fuzz`; a plain build replays input files).
        .target(name: "FuzzingSupport", path: "Sources/Fuzzing/FuzzingSupport", swiftSettings: swiftSettings),
        .executableTarget(
            name: "IRCParserFuzzer",
            dependencies: [
                "FuzzingSupport", "IRCProtocol", "IRCClient", .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/Fuzzing/IRCParserFuzzer",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "CommandArgumentFuzzer",
            dependencies: [
                "FuzzingSupport", "BotKit", "ClassKit", "IRCProtocol", "OnTheMapPlugins", "OnTheMapService",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Sources/Fuzzing/CommandArgumentFuzzer",
            swiftSettings: swiftSettings
        ),

        // MARK: Testing support (real servers for live tests).
        .target(
            name: "BotTesting",
            dependencies: [
                "IRCProtocol", "BotKit", "OnTheMapService", "Localization",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Tests
        .testTarget(
            name: "IRCProtocolTests",
            dependencies: ["IRCProtocol", .product(name: "Yams", package: "Yams")],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IRCClientTests",
            dependencies: [
                "IRCClient", "IRCProtocol", "BotKit", "BotTesting",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LocalizationTests",
            dependencies: ["Localization"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "OnTheMapServiceTests",
            dependencies: ["OnTheMapService"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DirectoryTests",
            dependencies: [
                "OnTheMapService", "SQLiteDirectory", "PostgresDirectory", "BotTesting",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LoadToolTests",
            dependencies: [
                "LoadTool", "IRCProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HTTPBackendsTests",
            dependencies: [
                "HTTPBackends", "OnTheMapService", "BotTesting",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BotKitTests",
            dependencies: [
                "BotKit", "BotTesting", "IRCProtocol", "Localization",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ClassKitTests",
            dependencies: ["ClassKit", "OnTheMapService"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "OnTheMapPluginsTests",
            dependencies: [
                "OnTheMapPlugins", "ClassKit", "BotKit", "BotTesting", "IRCProtocol", "OnTheMapService",
                "SQLiteDirectory", "Localization",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "OnTheMapApp", "ClassKit", "OnTheMapPlugins", "BotKit", "BotTesting", "IRCClient", "IRCProtocol",
                "OnTheMapService",
                "SQLiteDirectory", "PostgresDirectory", "HTTPBackends",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The 200-student load test against a real InspIRCd (several minutes; its own pass in scripts/test).
        .testTarget(
            name: "LoadTests",
            dependencies: [
                "OnTheMapApp", "BotTesting", "ClassKit", "IRCProtocol", "OnTheMapService", "SQLiteDirectory",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "OnTheMapAppTests",
            dependencies: [
                "OnTheMapApp", "BotKit", "IRCClient", "IRCProtocol", "BotTesting", "SQLiteDirectory",
                "OnTheMapService", "ClassKit", "OnTheMapPlugins", "Localization", "CZlib",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)

// `ONTHEMAP_UNIT_TESTS_ONLY=1` declares only the unit-test targets (scripts/test's `--unit`) and
// what they use: no application, PostgreSQL directory, executables or integration-test targets.
// CI's ThreadSanitizer build, which runs only the unit tests, compiles that much less.
if Context.environment["ONTHEMAP_UNIT_TESTS_ONLY"] == "1" {
    let notForUnitTests: Set<String> = [
        "BuildCommitPlugin", "BuildInfo", "OnTheMapApp", "PostgresDirectory", "OnTheMapBotCLI", "Benchmarks",
        "LoadTool", "FuzzingSupport", "IRCParserFuzzer", "CommandArgumentFuzzer", "DirectoryTests", "LoadToolTests",
        "EndToEndTests", "LoadTests", "OnTheMapAppTests",
    ]
    package.targets.removeAll { notForUnitTests.contains($0.name) }
    package.products = []
}
