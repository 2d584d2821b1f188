import BotKit
import Foundation
import OnTheMapService

/// The students' privacy: `!privacy` (what the class sees of you, and the precision your pin is
/// kept at).
public struct PrivacyPlugin: Plugin {
    public static let registration = ClassPluginRegistration("privacy", settings: NoSettings.self) { services, _ in
        PrivacyPlugin(services: services)
    }

    public let name = "privacy"
    let services: ClassServices

    public init(services: ClassServices) {
        self.services = services
    }

    public var commands: [Command] {
        let services = self.services
        return [
            Command(
                "privacy", usage: "!privacy [city | region | country | exact]",
                help:
                    "Who sees your pin and how precisely: shows it, or sets the level your pin is kept at (city by default).",
                allowed: .privateMessage,
                examples: [
                    CommandExample(
                        "!privacy",
                        answer: [
                            "Pins are kept at city level (the town) unless a student chooses otherwise: never the street typed.",
                            "Who sees them: …",
                            "Change yours: !privacy city|region|country|exact. What is kept about you: !mydata; erase it all: !forget.",
                        ]),
                    CommandExample(
                        "!privacy region",
                        answer: "OK: your pin …region level (state or province)…",
                        loggedIn: true),
                    CommandExample(
                        "!privacy street",
                        answer: "The levels are city, region, country or exact: !privacy region, for example.",
                        loggedIn: true),
                ]
            ) { call in try await PrivacyLevels.privacy(call, services) }
        ]
    }
}
