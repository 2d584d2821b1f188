// The two word lists of place resolution, kept as data (tab-separated; `#` starts a comment).
// Edit the tables, not the code: `PlaceVocabulary` parses them, and `PlaceVocabularyTests` checks
// that every line is well formed and that no alias hides a place of the gazetteer.

extension PlaceVocabulary {
    /// What students type when asked where they are that is not a place: `kind<TAB>phrase`.
    /// Phrases are compared after normalisation (case, accents and punctuation ignored, so
    /// "N/A" is "n a") and after leading words such as "I'm", "at", "from", "the", "my".
    /// Kinds: `online` (studying online or from home), `nowhere` (no answer, a placeholder or
    /// a joke), `offworld` (not on Earth, or not real). Real places that share a word with these
    /// (Hell in Norway, Bar in Montenegro, Nice, Jupiter in Florida, Atlantis in South Africa) and
    /// words that are a region's code ("OK", "HI") are deliberately not listed.
    static let nonPlaceTable = """
        # online: where an online student is, in their own words
        online\tonline
        online\tonline course
        online\tonline class
        online\tonline student
        online\tremote
        online\tremotely
        online\tfully remote
        online\tremote worker
        online\tdistance learning
        online\te learning
        online\tvirtual
        online\tvirtually
        online\tinternet
        online\tthe internet
        online\tweb
        online\tthe web
        online\tcyberspace
        online\tthe cloud
        online\tcloud
        online\tudacity
        online\tzoom
        online\tdiscord
        online\tirc
        online\tslack
        online\thome
        online\thome office
        online\thomeoffice
        online\tmy home
        online\thome sweet home
        online\twork from home
        online\tworking from home
        online\twfh
        online\toffice
        online\tmy office
        online\tmy room
        online\tmy bedroom
        online\tbedroom
        online\tmy desk
        online\tdesk
        online\tmy couch
        online\tcouch
        online\tmy laptop
        online\tlaptop
        online\tmy computer
        online\tcomputer
        online\tlibrary
        online\tthe library
        online\tschool
        online\tcampus
        online\tuniversity
        online\tclass
        online\tclassroom
        online\tcoffee shop
        online\tcafe
        online\there
        online\tright here
        online\tbehind you
        # nowhere: no answer, a placeholder or a joke
        nowhere\tanywhere
        nowhere\teverywhere
        nowhere\tnowhere
        nowhere\tsomewhere
        nowhere\tall over
        nowhere\tall over the place
        nowhere\tall over the world
        nowhere\taround the world
        nowhere\ttravelling
        nowhere\ttraveling
        nowhere\ton the road
        nowhere\tn a
        nowhere\tna
        nowhere\tnone
        nowhere\tyes
        nowhere\tnothing
        nowhere\tnull
        nowhere\tnil
        nowhere\tundefined
        nowhere\tunknown
        nowhere\tnot sure
        nowhere\tidk
        nowhere\ti dont know
        nowhere\tdunno
        nowhere\tsecret
        nowhere\tits a secret
        nowhere\tprivate
        nowhere\tprefer not to say
        nowhere\trather not say
        nowhere\tnot telling
        nowhere\ttest
        nowhere\ttesting
        nowhere\tasdf
        nowhere\tasdfgh
        nowhere\tqwerty
        nowhere\tfoo
        nowhere\tfoobar
        nowhere\thello
        nowhere\tlol
        nowhere\txxx
        nowhere\tplace
        nowhere\tmy place
        nowhere\tlocation
        nowhere\tmy location
        nowhere\tmy city
        nowhere\tcity
        nowhere\tcountry
        nowhere\tmy country
        nowhere\tplanet earth
        nowhere\tearth
        nowhere\tworld
        nowhere\tthe world
        nowhere\tworldwide
        nowhere\tglobal
        nowhere\tinternational
        nowhere\tuniverse
        nowhere\tthe universe
        # offworld: not on Earth, or not a real place
        offworld\tmoon
        offworld\tthe moon
        offworld\tmars
        offworld\tplanet mars
        offworld\tspace
        offworld\touter space
        offworld\tthe sun
        offworld\tsaturn
        offworld\tvenus
        offworld\tiss
        offworld\tthe iss
        offworld\tinternational space station
        offworld\tspace station
        offworld\tmilky way
        offworld\tthe milky way
        offworld\tgalaxy
        offworld\ta galaxy far far away
        offworld\theaven
        offworld\tnarnia
        offworld\tmiddle earth
        offworld\tmordor
        offworld\tthe shire
        offworld\thogwarts
        offworld\tneverland
        offworld\twakanda
        offworld\tgotham
        offworld\tgotham city
        offworld\tthe matrix
        offworld\tmatrix
        offworld\tcloud cuckoo land
        offworld\tla la land
        """

    /// Regions and metro areas that are no place of the gazetteer, each mapped to a central city:
    /// `names (|-separated)<TAB>name<TAB>region<TAB>country<TAB>ISO code<TAB>latitude<TAB>longitude
    /// <TAB>qualifier words<TAB>centre<TAB>what the name covers, by whose definition`. The centre's
    /// coordinates are those of that city in the GeoNames-derived gazetteer; qualifier words may
    /// follow the name ("Bay Area, CA"). Sources are named in NOTICE.
    static let aliasTable = """
        bay area|the bay area|sf bay area|san francisco bay area|sf bay\tSan Francisco Bay Area\tCalifornia\tUnited States\tUS\t37.804\t-122.271\tca california us usa united states america\tOakland\tthe nine Bay Area counties (Association of Bay Area Governments)
        silicon valley|the silicon valley\tSilicon Valley\tCalifornia\tUnited States\tUS\t37.354\t-121.955\tca california us usa united states america\tSanta Clara\tSanta Clara County and the south of San Mateo County (Joint Venture Silicon Valley)
        socal|southern california|so cal|greater los angeles|la area|los angeles area\tGreater Los Angeles\tCalifornia\tUnited States\tUS\t34.052\t-118.244\tca california us usa united states america\tLos Angeles\tthe Los Angeles combined statistical area (US Census Bureau)
        inland empire\tInland Empire\tCalifornia\tUnited States\tUS\t33.953\t-117.396\tca california us usa united states america\tRiverside\tRiverside and San Bernardino counties (US Census Bureau)
        norcal|northern california|nor cal\tNorthern California\tCalifornia\tUnited States\tUS\t38.582\t-121.494\tca california us usa united states america\tSacramento\tthe north of California (Sacramento, the state capital, as its centre)
        puget sound|puget sound region|greater seattle|seattle area\tPuget Sound region\tWashington\tUnited States\tUS\t47.606\t-122.332\twa washington us usa united states america\tSeattle\tthe Seattle metropolitan area (US Census Bureau)
        tri state area|tristate area|the tri state area|new york metro|new york metropolitan area|nyc area|greater new york\tNew York metropolitan area\tNew York\tUnited States\tUS\t40.714\t-74.006\tny new york nj new jersey ct us usa united states america\tNew York City\tthe New York combined statistical area (US Census Bureau)
        greater boston|boston area|metro boston\tGreater Boston\tMassachusetts\tUnited States\tUS\t42.358\t-71.06\tma massachusetts us usa united states america\tBoston\tthe Boston metropolitan area (US Census Bureau)
        dmv|dc area|dc metro|dc metro area|washington metropolitan area|greater washington|washington dc area\tWashington metropolitan area\tDistrict of Columbia\tUnited States\tUS\t38.895\t-77.036\tdc md va us usa united states america\tWashington\tthe Washington metropolitan area (US Census Bureau)
        research triangle|the research triangle|triangle area\tResearch Triangle\tNorth Carolina\tUnited States\tUS\t35.994\t-78.899\tnc north carolina us usa united states america\tDurham\tRaleigh, Durham and Chapel Hill (Research Triangle Regional Partnership)
        twin cities|the twin cities\tTwin Cities\tMinnesota\tUnited States\tUS\t44.98\t-93.264\tmn minnesota us usa united states america\tMinneapolis\tMinneapolis and Saint Paul (Metropolitan Council)
        dfw|dallas fort worth|dallas ft worth|the metroplex|metroplex|dfw metroplex\tDallas–Fort Worth\tTexas\tUnited States\tUS\t32.736\t-97.108\ttx texas us usa united states america\tArlington\tthe Dallas–Fort Worth metropolitan area (US Census Bureau)
        gta|greater toronto|greater toronto area\tGreater Toronto Area\tOntario\tCanada\tCA\t43.706\t-79.399\ton ontario ca canada\tToronto\tToronto and its four regional municipalities (Government of Ontario)
        greater vancouver|metro vancouver|lower mainland\tMetro Vancouver\tBritish Columbia\tCanada\tCA\t49.25\t-123.119\tbc british columbia ca canada\tVancouver\tthe Metro Vancouver Regional District (Metro Vancouver)
        greater montreal|montreal area\tGreater Montreal\tQuebec\tCanada\tCA\t45.509\t-73.588\tqc quebec ca canada\tMontréal\tthe Montreal Metropolitan Community (Communauté métropolitaine de Montréal)
        greater london|london area|greater london area\tGreater London\tEngland\tUnited Kingdom\tGB\t51.509\t-0.126\tengland uk united kingdom gb great britain\tLondon\tthe 32 London boroughs and the City (Greater London Authority)
        greater manchester\tGreater Manchester\tEngland\tUnited Kingdom\tGB\t53.481\t-2.237\tengland uk united kingdom gb great britain\tManchester\tthe ten boroughs of the Greater Manchester Combined Authority
        west midlands|the west midlands\tWest Midlands\tEngland\tUnited Kingdom\tGB\t52.481\t-1.9\tengland uk united kingdom gb great britain\tBirmingham\tthe West Midlands metropolitan county (West Midlands Combined Authority)
        ruhr|the ruhr|ruhr area|ruhr valley|ruhrgebiet|ruhrpott|metropole ruhr|ruhr region\tRuhr\tNorth Rhine-Westphalia\tGermany\tDE\t51.457\t7.012\tnrw north rhine westphalia nordrhein westfalen de germany deutschland\tEssen\tthe eleven cities and four districts of the Regionalverband Ruhr
        rhine main|rhein main|rhein main gebiet|frankfurt rhine main\tFrankfurt Rhine-Main\tHesse\tGermany\tDE\t50.116\t8.684\thesse hessen de germany deutschland\tFrankfurt am Main\tthe Frankfurt Rhine-Main metropolitan region (Regionalverband FrankfurtRheinMain)
        randstad|the randstad\tRandstad\tUtrecht\tThe Netherlands\tNL\t52.091\t5.122\tnl netherlands the netherlands holland\tUtrecht\tAmsterdam, Rotterdam, The Hague and Utrecht and the land between (Planbureau voor de Leefomgeving)
        greater paris|grand paris|paris region|paris area|region parisienne\tGreater Paris\tÎle-de-France\tFrance\tFR\t48.853\t2.349\tfr france\tParis\tthe Métropole du Grand Paris (Métropole du Grand Paris)
        french riviera|the french riviera|cote dazur\tFrench Riviera\tProvence-Alpes-Côte d'Azur\tFrance\tFR\t43.703\t7.266\tfr france\tNice\tthe Mediterranean coast of the Alpes-Maritimes (Département des Alpes-Maritimes)
        costa del sol\tCosta del Sol\tAndalusia\tSpain\tES\t36.72\t-4.42\tspain espana es andalusia andalucia\tMálaga\tthe coast of the province of Málaga (Diputación de Málaga)
        greater tokyo|greater tokyo area|tokyo area|kanto|kanto region\tGreater Tokyo Area\tTokyo\tJapan\tJP\t35.69\t139.692\tjp japan\tTokyo\tTokyo and the prefectures around it (Statistics Bureau of Japan)
        kansai|kansai region|keihanshin\tKansai\tOsaka\tJapan\tJP\t34.694\t135.501\tjp japan\tOsaka\tOsaka, Kyoto, Kobe and the prefectures around them (Kansai region, Statistics Bureau of Japan)
        greater sydney|sydney area\tGreater Sydney\tNew South Wales\tAustralia\tAU\t-33.868\t151.207\tnsw new south wales au australia\tSydney\tthe Greater Sydney statistical area (Australian Bureau of Statistics)
        melbourne area|melbourne metro\tGreater Melbourne\tVictoria\tAustralia\tAU\t-37.814\t144.963\tvic victoria au australia\tMelbourne\tthe Greater Melbourne statistical area (Australian Bureau of Statistics)
        delhi ncr|delhi national capital region|delhi area\tNational Capital Region\tDelhi\tIndia\tIN\t28.621\t77.215\tin india\tNew Delhi\tDelhi and the districts around it (National Capital Region Planning Board)
        mumbai metropolitan region|greater mumbai|mumbai area\tMumbai Metropolitan Region\tMaharashtra\tIndia\tIN\t19.073\t72.883\tin india maharashtra\tMumbai\tthe Mumbai Metropolitan Region (MMRDA)
        greater cairo|cairo area\tGreater Cairo\tCairo\tEgypt\tEG\t30.063\t31.25\teg egypt\tCairo\tCairo, Giza and Qalyubia (CAPMAS, Egypt's statistics agency)
        pearl river delta|the pearl river delta\tPearl River Delta\tGuangdong\tChina\tCN\t23.117\t113.25\tcn china guangdong\tGuangzhou\tthe Pearl River Delta economic zone (Government of Guangdong)
        """
}
