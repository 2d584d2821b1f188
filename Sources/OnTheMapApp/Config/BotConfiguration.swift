import BotKit
import ClassKit
import Localization
import OnTheMapPlugins
import OnTheMapService

/// Everything the operator configures, read from one YAML file (see `config/`), with secrets
/// optionally taken from environment variables.
public struct BotConfiguration: Sendable, Equatable {
    /// The name of the one network of an `irc:` section (and of the first network of a config
    /// made in code): what its logs, metrics, `/healthz` and `!status` call it.
    public static let defaultNetworkName = ClassSettings.defaultNetworkName

    /// The IRC networks the bot serves, in the config's order: the one `irc:` section, or the
    /// entries of `networks:`. Never empty in a config that passed its checks.
    public var networks: [Network] = [Network(name: defaultNetworkName, keyPath: "irc")]
    /// The first network's section (the only one of an `irc:` config).
    public var irc: IRCSection {
        get { networks.first?.irc ?? IRCSection() }
        set {
            if networks.isEmpty { networks = [Network(name: Self.defaultNetworkName, keyPath: "irc")] }
            networks[0].irc = newValue
        }
    }
    public var service = ServiceSection()
    public var geocoder = GeocoderSection()
    public var plugins = PluginsSection()
    public var web = WebSection()
    public var privacy = PrivacySection()
    /// The `operator:` section (`operator` is a Swift keyword).
    public var operatorListener = OperatorSection()
    public var log = LogSection()
    /// `language:`: the language of every network and channel that names none (English unless set).
    public var language: Language?

    public init() {}

    /// The `log:` section: what the bot's log may say about students.
    public struct LogSection: Sendable, Equatable {
        /// `log.student_data`: command lines carry the arguments (places, links, names) and the
        /// sender's `nick!user@host`; false names the sender by a pseudonym and logs no argument.
        public var studentData = false
    }

    /// The section of the network called `name`, if the config has one.
    public func network(named name: String) -> Network? {
        networks.first { $0.name == name }
    }

    /// One IRC network: its name and the keys of an `irc:` section.
    public struct Network: Sendable, Equatable {
        /// Letters, digits, `.`, `_` and `-`; unique in the config.
        public var name: String
        public var irc: IRCSection
        /// Where its keys are in the file: `irc` or `networks[N]` (what problems and `!reload` name).
        public var keyPath: String

        public init(name: String, irc: IRCSection = IRCSection(), keyPath: String? = nil) {
            self.name = name
            self.irc = irc
            self.keyPath = keyPath ?? "networks.\(name)"
        }
    }

    /// The `irc:` section, and each entry of `networks:` (with its `name`).
    public struct IRCSection: Sendable, Equatable {
        public var server = ""
        public var port = 6697
        public var tls = true
        public var tlsCAFile = ""
        public var tlsFingerprint = ""
        public var tlsClientCert = ""
        public var tlsClientKey = ""
        public var serverPassword = ""
        public var nick = ""
        public var altNicks: [String] = []
        public var username = "onthemap"
        public var realname = IRCSection.defaultRealname
        /// How the network's staff reach whoever runs the bot (an email, a nick, a web page): in the
        /// default realname, `!help about` and the CTCP VERSION reply. Empty: not said.
        public var contact = ""
        /// `language:` of the network: its channels' and private answers' language when a student
        /// chose none (the top-level `language:` when unset).
        public var language: Language?
        public var sasl: SASL?
        public var channels: [ChannelEntry] = []
        public var announceTo: [String] = []
        public var commandPrefix = "!"
        /// Who may run owner commands: services accounts (`account:NAME`) and `nick!user@host` masks.
        public var owners: [String] = []
        public var flood = Flood()
        public var quitMessage = "On The Map bot signing off"
        /// On SIGTERM/SIGINT, how long queued replies keep going out (at the flood rate) before QUIT.
        public var shutdownDrainSeconds = 5.0

        public init() {}
    }

    /// SASL login to the network's services.
    public struct SASL: Sendable, Equatable {
        public enum Mechanism: String, Sendable, Equatable, CaseIterable {
            case plain = "PLAIN"
            case external = "EXTERNAL"
            case scramSHA256 = "SCRAM-SHA-256"
            case scramSHA512 = "SCRAM-SHA-512"
        }
        /// The mechanisms in order of preference; empty for `auto` (the strongest the server offers).
        public var mechanisms: [Mechanism] = [.plain]
        public var username = ""
        public var password = ""
        /// Whether to stop (true) or go on without an account (false) when SASL fails.
        public var required = true

        /// `auto` or the mechanisms, comma-separated.
        public var mechanismsText: String {
            mechanisms.isEmpty ? "auto" : mechanisms.map(\.rawValue).joined(separator: ",")
        }
    }

    /// A channel to join, with its key when it has one.
    public struct ChannelEntry: Sendable, Equatable {
        public var name: String
        public var key: String?
        /// The language of the channel's announcements, and of answers to students there who chose
        /// none (the network's when unset).
        public var language: Language?

        public init(name: String, key: String? = nil, language: Language? = nil) {
            self.name = name
            self.key = key
            self.language = language
        }
    }

    /// The languages of `irc`'s channels and of its private answers, with the top-level
    /// `language:` under the network's.
    public func channelLanguages(of irc: IRCSection) -> ChannelLanguages {
        var byChannel: [String: Language] = [:]
        for channel in irc.channels { byChannel[channel.name] = channel.language }
        return ChannelLanguages(fallback: irc.language ?? language ?? .english, byChannel: byChannel)
    }

    /// The outgoing flood limits: 10 lines of burst then 1 a second, stock InspIRCd 3's own allowance
    /// (10 commands of penalty, 1 a second; see `FloodGate`); `linesPerSecond` 0 turns the throttle off.
    public struct Flood: Sendable, Equatable {
        /// `false` sends every line at once (load tests against a private server only).
        public var enabled = true
        public var burst = 10
        public var linesPerSecond = 1.0
    }

    /// The `service:` section.
    public struct ServiceSection: Sendable, Equatable {
        public enum Backend: String, Sendable, Equatable, CaseIterable { case local, postgres, udacity }
        public var backend: Backend = .local
        public var database = "data/onthemap.sqlite"
        public var postgresURL = ""
        public var udacityURL = "https://onthemap-api.udacity.com/v1"
        /// The most pins read from the Udacity API at start (paged with `skip`).
        public var udacityMaxPins = 10_000
        /// What `!signup` gives; empty: Udacity's sign-up page on the udacity backend, and on the
        /// local and postgres backends how to get an account on this class (`!register`, or ask).
        public var signupURL = ""
        /// `service.api:`, the On The Map v1 API served under `/v1` on the web listener.
        public var api = APISection()
    }

    /// `service.api:`: the class directory served to the seeds' apps and the web page.
    public struct APISection: Sendable, Equatable {
        public var enabled = false
    }

    /// The `geocoder:` section.
    public struct GeocoderSection: Sendable, Equatable {
        public enum Kind: String, Sendable, Equatable, CaseIterable { case gazetteer, nominatim }
        public var kind: Kind = .gazetteer
        public var nominatimURL = ""
        public var userAgent = ""
    }

    /// The `plugins:` section.
    public struct PluginsSection: Sendable, Equatable {
        /// Every plugin, in `!help` order.
        public static var all: [String] { PluginAssembly.names }
        public var enabled: [String] = all
        /// Channel → plugins turned off there.
        public var disabledIn: [String: [String]] = [:]
        /// `false` turns off the per-user command flood rule and the commands' cooldowns (load
        /// tests against a private server only).
        public var userLimits = true
        /// `commands_per_host`: what one host (an IPv6 address by its /64) or services account may
        /// send, whatever its connections and user names: `burst` at once, then `per_minute`.
        public var commandsPerHost = CommandsPerHost()
        /// Each plugin's own section (`plugins.<name>:`), by plugin name; the plugin reads it (see
        /// `ClassPluginSettings`).
        public var sections: [String: SettingsValue] = [:]
    }

    /// `plugins.commands_per_host`: a bucket per host that holds `burst` commands and fills again at
    /// `perMinute` (generous, because a school behind one NAT address shares it).
    public struct CommandsPerHost: Sendable, Equatable {
        public var burst = 40
        public var perMinute = 60

        public init(burst: Int = 40, perMinute: Int = 60) {
            self.burst = burst
            self.perMinute = perMinute
        }
    }

    /// The `web:` section.
    public struct WebSection: Sendable, Equatable {
        public var enabled = false
        public var listen = "127.0.0.1:8080"
        public var publicURL = "http://localhost:8080"
        /// PEM certificate chain and private key: the listener speaks HTTPS (both or neither).
        public var tlsCert = ""
        public var tlsKey = ""
        /// A TLS reverse proxy forwards to the listener: the client's address is the last
        /// `X-Forwarded-For` entry, and the API may be enabled on a non-loopback address without TLS.
        public var behindProxy = false
        /// `web.tiles`: an XYZ tile service the page draws instead of its offline outlines while it
        /// can load from it (both empty: the offline map only).
        public var tiles = Tiles()

        /// `web.tiles: {url, attribution}`, as written (checked by the loader, see ``MapTileLayer``).
        public struct Tiles: Sendable, Equatable {
            public var url = ""
            public var attribution = ""

            /// Whether either key is set: then both must be valid.
            public var isSet: Bool { !url.isEmpty || !attribution.isEmpty }
        }

        /// The tile layer of `tiles`, when set and valid.
        public var tileLayer: MapTileLayer? {
            guard tiles.isSet else { return nil }
            return try? MapTileLayer(template: tiles.url, attribution: tiles.attribution)
        }

        /// Whether the listener itself speaks HTTPS.
        public var servesTLS: Bool { !tlsCert.isEmpty && !tlsKey.isEmpty }
        /// `web.visibility`: who may see the students' pins, on the web and on IRC.
        public var visibility: PrivacyPolicy.Visibility = .class
    }

    /// The `privacy:` section: the precision pins are kept at, where lookups are answered, how
    /// long a pin stays.
    public struct PrivacySection: Sendable, Equatable {
        /// `privacy.default`: the precision of a student who has not chosen one.
        public var defaultPrecision: PinPrecision = .city
        /// `privacy.finest`: the finest precision a student may choose.
        public var finestPrecision: PinPrecision = .exact
        /// `privacy.channel_answers`: lookups asked in a channel answered there, or to the asker.
        public var channelAnswers: PrivacyPolicy.ChannelAnswers = .channel
        /// `privacy.open_channel`: what a channel anyone may join hears of the students while the
        /// class is for the class: their names only, or everything.
        public var openChannel: PrivacyPolicy.OpenChannel = .names
        /// `privacy.pin_days`: a pin not updated for this many days leaves the map; 0 keeps pins.
        public var pinDays = 0
        /// `privacy.city_min_population`: a city-level pin in a place of fewer people is kept at the
        /// nearest place of at least this many in its region (or at the region); 0 turns that off.
        public var cityMinimumPopulation = PrivacyPolicy.defaultCityMinimumPopulation
    }

    /// The privacy rules the plugins, the web map and the API follow.
    public var privacyPolicy: PrivacyPolicy {
        PrivacyPolicy(
            defaultPrecision: privacy.defaultPrecision, finestPrecision: privacy.finestPrecision,
            visibility: web.visibility, channelAnswers: privacy.channelAnswers,
            openChannel: privacy.openChannel, pinDays: privacy.pinDays > 0 ? privacy.pinDays : nil,
            studentDataInLog: log.studentData, cityMinimumPopulation: privacy.cityMinimumPopulation)
    }

    /// The `operator:` section: the listener of `/healthz` and `/metrics`, for the operator's
    /// monitoring (and `onthemap-bot healthcheck`), apart from the class map.
    public struct OperatorSection: Sendable, Equatable {
        public var enabled = false
        public var listen = "127.0.0.1:9090"
    }
}

extension BotConfiguration.IRCSection {
    /// The realname when the config does not set one.
    public static let defaultRealname = "On The Map class bot"

    /// The realname sent at registration: the one configured, or the default naming the contact.
    public var registeredRealname: String {
        guard realname == Self.defaultRealname, !contact.isEmpty else { return realname }
        return "\(realname), contact: \(contact)"
    }

    /// The CTCP VERSION reply: the bot's version, and the contact when there is one.
    public var versionReply: String {
        contact.isEmpty ? BotVersion.ctcpReply : "\(BotVersion.ctcpReply), contact: \(contact)"
    }
}
