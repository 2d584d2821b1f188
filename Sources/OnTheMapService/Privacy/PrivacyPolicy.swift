/// What the operator decided about the students' privacy (the `privacy:` section and
/// `web.visibility`): the precision pins are kept at, who may look at the class, where answers go,
/// and how long a pin stays.
public struct PrivacyPolicy: Sendable, Equatable {
    /// Who may see the students' pins.
    public enum Visibility: String, Sendable, Equatable, CaseIterable {
        /// Only students signed in to the class (on IRC, on the web page, through the API).
        case `class`
        /// Anyone who can reach the bot or its web map.
        case `public`
    }

    /// Where a lookup asked in a channel is answered.
    public enum ChannelAnswers: String, Sendable, Equatable, CaseIterable {
        /// In the channel, seen by everyone in it.
        case channel
        /// To the asker alone, by notice.
        case `private`
    }

    /// What a channel open to anyone (no key, not invite-only) hears of the students while only the
    /// class may see them.
    public enum OpenChannel: String, Sendable, Equatable, CaseIterable {
        /// Their names only: announcements and lookup answers there leave out places and links (a
        /// logged-in asker gets the full answer by notice).
        case names
        /// Everything, as in a keyed channel.
        case full
    }

    /// The precision of a student who has not chosen one (`privacy.default`).
    public var defaultPrecision: PinPrecision
    /// The finest precision a student may choose (`privacy.finest`): `city` forbids `exact`.
    public var finestPrecision: PinPrecision
    /// `web.visibility`.
    public var visibility: Visibility
    /// `privacy.channel_answers`.
    public var channelAnswers: ChannelAnswers
    /// `privacy.open_channel`.
    public var openChannel: OpenChannel
    /// `privacy.pin_days`: a pin not updated for this many days leaves the map; nil keeps pins.
    public var pinDays: Int?
    /// `log.student_data`: whether the bot's log keeps what students type and who they are.
    public var studentDataInLog: Bool
    /// `privacy.city_min_population`: a city-level pin in a place of fewer people is kept at the
    /// nearest place of at least this many in the same region, or at the region when it has none;
    /// 0 keeps every city-level pin at the nearest populated place.
    public var cityMinimumPopulation: Int

    /// The `privacy.city_min_population` of a config that does not set it.
    public static let defaultCityMinimumPopulation = 15_000

    public init(
        defaultPrecision: PinPrecision = .city, finestPrecision: PinPrecision = .exact,
        visibility: Visibility = .class, channelAnswers: ChannelAnswers = .channel,
        openChannel: OpenChannel = .names, pinDays: Int? = nil, studentDataInLog: Bool = false,
        cityMinimumPopulation: Int = PrivacyPolicy.defaultCityMinimumPopulation
    ) {
        self.defaultPrecision = defaultPrecision
        self.finestPrecision = finestPrecision
        self.visibility = visibility
        self.channelAnswers = channelAnswers
        self.openChannel = openChannel
        self.pinDays = pinDays
        self.studentDataInLog = studentDataInLog
        self.cityMinimumPopulation = cityMinimumPopulation
    }

    /// What the operator's log may still hold about a student, for `!mydata` and `!forget`.
    public var logSentence: String {
        studentDataInLog
            ? "The operator's log keeps your commands with what you typed (places, links, names) and your nick and host, as long as the operator keeps log files; this bot cannot erase it."
            : "The operator's log keeps which commands were sent and when, under a code name, never what you typed; old log lines stay as long as the operator keeps log files."
    }

    /// The level a student's choice gives, held to the finest the operator allows.
    public func allowed(_ chosen: PinPrecision?) -> PinPrecision {
        max(chosen ?? defaultPrecision, finestPrecision)
    }

    /// Whether only signed-in students may see the class.
    public var classOnly: Bool { visibility == .class }

    /// Whether a channel open to anyone hears students' names without their places or links: the
    /// class is for the class (`web.visibility: class`) and `privacy.open_channel` is `names`.
    public var withholdsPlacesInOpenChannels: Bool { classOnly && openChannel == .names }
}
