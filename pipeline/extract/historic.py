"""Older names of countries and cultural regions: a small reviewed table, one decision per name.

Models name a dish's origin by names that are no longer a state's ("Persia", "Burma", "Siam", "the
Ottoman Empire") or by a cultural region inside one ("Bohemia"). Each row below maps such a name to
the ISO 3166-1 country that holds the place today, or to no country when the old state or region
spans several of today's (Yugoslavia, Mesopotamia): then it is kept as a broad region, like "Central
Asia", and never counted as a country. The reason of every decision is written beside it.

The English names of Persia, Burma, Ceylon, Siam and Formosa were already in the curated aliases
(`aliases.ALIASES["en"]`); they are listed here too, with the other languages' forms, so this table
is the one place that says what each old name means.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class OldName:
    """An older name or cultural region: `country` (ISO alpha-2) or, when None, the broad `region`."""

    country: str | None
    region: str | None
    reason: str
    names: dict[str, tuple[str, ...]]  # CLDR locale -> the written forms (names and adjectives)


OLD_NAMES: tuple[OldName, ...] = (
    OldName(
        "IR",
        None,
        "Persia was Iran's name abroad until 1935; Persian cuisine is Iran's",
        {
            "en": ("Persia", "Persian", "Persians", "ancient Persia"),
            "es": ("Persia", "persa", "persas"),
            "it": ("Persia", "persiano", "persiana", "persiani"),
            "fr": ("Perse", "persan", "persane", "persans"),
            "id": ("Persia",),
            "ru": ("Персия", "персидский"),
            "uk": ("Персія", "перський"),
            "cs": ("Persie",),
            "ja": ("ペルシャ", "ペルシア"),
            "ko": ("페르시아",),
            "zh": ("波斯",),
            "zh_Hant": ("波斯",),
            "th": ("เปอร์เซีย",),
            "hi": ("फ़ारस", "फारस"),
            "ar": ("بلاد فارس",),
        },
    ),
    OldName(
        "MM",
        None,
        "Burma is Myanmar's name until 1989 (still CLDR's bracketed alternative)",
        {
            "en": ("Burma", "Burmese"),
            "es": ("Birmania",),
            "it": ("Birmania",),
            "fr": ("Birmanie", "birman", "birmane"),
            "ru": ("Бирма", "бирманский"),
            "uk": ("Бірма", "бірманський"),
            "th": ("พม่า",),
            "hi": ("बर्मा",),
            "mr": ("बर्मा",),
            "ja": ("ビルマ",),
            "ko": ("버마",),
            "id": ("Birma",),
        },
    ),
    OldName(
        "LK",
        None,
        "Ceylon is Sri Lanka's name until 1972",
        {
            "en": ("Ceylon",),
            "es": ("Ceilán",),
            "it": ("Ceylon",),
            "fr": ("Ceylan",),
            "ru": ("Цейлон",),
            "uk": ("Цейлон",),
            "ja": ("セイロン",),
            "zh": ("锡兰",),
            "zh_Hant": ("錫蘭",),
        },
    ),
    OldName(
        "TH",
        None,
        "Siam is Thailand's name until 1939",
        {
            "en": ("Siam", "Siamese"),
            "fr": ("Siam",),
            "ru": ("Сиам",),
            "uk": ("Сіам",),
            "ja": ("シャム",),
            "zh": ("暹罗",),
            "zh_Hant": ("暹羅",),
            "th": ("สยาม",),
        },
    ),
    OldName("TW", None, "Formosa: the island of Taiwan", {"en": ("Formosa",), "ru": ("Формоза",)}),
    OldName(
        "CZ",
        None,
        "Bohemia and Moravia are the Czech Republic's historical lands, wholly inside it",
        {
            "en": ("Bohemia", "Bohemian", "Moravia", "Moravian"),
            "cs": ("Čechy", "Morava"),
            "es": ("Bohemia",),
            "it": ("Boemia",),
            "fr": ("Bohême",),
            "ru": ("Богемия",),
            "uk": ("Богемія",),
        },
    ),
    OldName(
        "TR",
        None,
        "the Ottoman Empire: models use it for Turkish cuisine, and Turkey is the Empire's successor state; "
        "the Empire's other lands are named by their own countries when an answer means them",
        {
            "en": ("Ottoman Empire", "Ottoman", "Ottomans", "Anatolia", "Anatolian"),
            "es": ("Imperio otomano", "otomano", "otomana"),
            "it": ("Impero ottomano", "ottomano", "ottomana"),
            "fr": ("Empire ottoman", "ottoman", "ottomane"),
            "id": ("Kekaisaran Ottoman", "Kesultanan Utsmaniyah", "Utsmaniyah"),
            "ru": ("Османская империя", "Османской империи", "Османскую империю", "османский"),
            "uk": ("Османська імперія", "Османської імперії", "османський"),
            "ja": ("オスマン帝国",),
            "ko": ("오스만 제국",),
            "zh": ("奥斯曼帝国",),
            "zh_Hant": ("奧斯曼帝國", "鄂圖曼帝國"),
            "th": ("จักรวรรดิออตโตมัน",),
            "ar": ("الدولة العثمانية", "العثمانية"),
        },
    ),
    OldName(
        "ES",
        None,
        "Hispania: the Roman name of the Iberian peninsula, used for Spain",
        {"en": ("Hispania",), "hi": ("हिस्पानिया",), "id": ("Hispania",)},
    ),
    OldName("CD", None, "Zaire was the DR Congo's name 1971-1997", {"en": ("Zaire",), "fr": ("Zaïre",)}),
    OldName("BJ", None, "Dahomey was Benin's name until 1975", {"en": ("Dahomey",)}),
    OldName("BF", None, "Upper Volta was Burkina Faso's name until 1984", {"en": ("Upper Volta",)}),
    OldName(
        "ET",
        None,
        "Abyssinia is Ethiopia's old name",
        {"en": ("Abyssinia", "Abyssinian"), "ru": ("Абиссиния",), "uk": ("Абіссинія",), "fr": ("Abyssinie",)},
    ),
    OldName("KH", None, "Kampuchea is Cambodia's name 1975-1989", {"en": ("Kampuchea",)}),
    OldName("CN", None, "Manchuria lies wholly in China's north-east today", {"en": ("Manchuria", "Manchurian")}),
    # Old states and regions that span several of today's countries: kept as regions.
    OldName(
        None,
        "Mesopotamia",
        "Mesopotamia spans Iraq, Syria and Turkey: no one country",
        {
            "en": ("Mesopotamia", "Mesopotamian"),
            "es": ("Mesopotamia",),
            "it": ("Mesopotamia",),
            "fr": ("Mésopotamie",),
            "ru": ("Месопотамия",),
            "si": ("මැසෝපොටේමියා",),
            "zh": ("美索不达米亚",),
            "ja": ("メソポタミア",),
        },
    ),
    OldName(None, "Levant", "the Levant spans Lebanon, Syria, Israel, Palestine and Jordan", {"en": ("Levant",)}),
    OldName(None, "Fertile Crescent", "the Fertile Crescent spans several countries", {"en": ("Fertile Crescent",)}),
    OldName(
        None,
        "Czechoslovakia",
        "Czechoslovakia split into the Czech Republic and Slovakia",
        {"en": ("Czechoslovakia", "Czechoslovak"), "cs": ("Československo",), "ru": ("Чехословакия",)},
    ),
    OldName(
        None,
        "Prussia",
        "Prussia's lands are in Germany, Poland, Russia and Lithuania today",
        {"en": ("Prussia", "Prussian"), "ru": ("Пруссия",)},
    ),
    OldName(
        None,
        "Austria-Hungary",
        "Austria-Hungary spans a dozen of today's countries",
        {"en": ("Austria-Hungary", "Austro-Hungarian", "Austro-Hungarian Empire")},
    ),
    OldName(
        None,
        "Yugoslavia",
        "Yugoslavia split into seven countries (already a region in the curated list for ru/uk/en)",
        {
            "cs": ("Jugoslávie", "jihoslávie", "jihoslavie"),
            "es": ("Yugoslavia",),
            "it": ("Jugoslavia",),
            "fr": ("Yougoslavie",),
        },
    ),
    OldName(
        None,
        "Roman Empire",
        "the Roman Empire spans the Mediterranean (ancient Rome, the city, is Italy's: see places)",
        {"en": ("Roman Empire",)},
    ),
    # Issue 49: broad historical regions whose name holds a country's, read as that country through the part
    # ("印度支那" and "인도차이나" as India, "อินโดจีน" as China, "New Spain" as Spain, "Greater Syria" as Syria).
    OldName(
        None,
        "Indochina",
        "Indochina (French Indochina) spans Vietnam, Laos and Cambodia, and by some uses Thailand and Myanmar",
        {
            "en": ("Indochina", "French Indochina", "Indo-China"),
            "fr": ("Indochine", "Indochine française"),
            "es": ("Indochina",),
            "it": ("Indocina",),
            "id": ("Indocina", "Indochina"),
            "fil": ("Indotsina",),
            "cs": ("Indočína",),
            "ru": ("Индокитай", "Французский Индокитай"),
            "uk": ("Індокитай",),
            "ja": ("インドシナ",),
            "ko": ("인도차이나",),
            "zh": ("印度支那", "中南半岛"),
            "zh_Hant": ("印度支那", "中南半島"),
            "th": ("อินโดจีน",),
            "hi": ("हिंद-चीन", "हिन्द-चीन", "इंडोचाइना"),
            "mr": ("इंडोचायना",),
            "bn": ("ইন্দোচীন",),
            "ar": ("الهند الصينية",),
        },
    ),
    OldName(
        None,
        "New Spain",
        "New Spain was a Spanish viceroyalty: Mexico, Central America, the US south-west and the Philippines",
        {
            "en": ("New Spain",),
            "es": ("Nueva España",),
            "fr": ("Nouvelle-Espagne",),
            "it": ("Nuova Spagna",),
            "ru": ("Новая Испания",),
            "uk": ("Нова Іспанія",),
        },
    ),
    OldName(
        None,
        "Greater Syria",
        "Greater Syria (Bilad al-Sham) is the Levant: Syria, Lebanon, Jordan, Israel and Palestine",
        {"en": ("Greater Syria",), "fr": ("Grande Syrie",), "ar": ("سوريا الكبرى", "بلاد الشام")},
    ),
    OldName(
        None,
        "British India",
        "British India spans today's India, Pakistan, Bangladesh and (until 1937) Myanmar",
        {"en": ("British India", "British Raj"), "ru": ("Британская Индия",), "uk": ("Британська Індія",)},
    ),
    OldName(
        "ID",
        None,
        "the Dutch East Indies were the colony that became Indonesia",
        {
            "en": ("Dutch East Indies", "Netherlands East Indies"),
            "id": ("Hindia Belanda",),
            "jv": ("Hindia Walanda",),
            "fr": ("Indes orientales néerlandaises",),
            "es": ("Indias Orientales Neerlandesas",),
            "ru": ("Нидерландская Ост-Индия", "Голландская Ост-Индия"),
        },
    ),
)


def candidates(lang: str) -> Iterator[tuple[str, str | None, str | None]]:
    """(written form, country, region) of every old name written in `lang`."""
    for old in OLD_NAMES:
        for written in old.names.get(lang, ()):
            yield written, old.country, old.region
