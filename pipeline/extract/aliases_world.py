"""Country names in the other languages of the WorldCuisines prompts, where CLDR (babel) is not
enough: short forms ("Korea"), the UK's nations, demonyms used as answers, and languages CLDR
barely covers (Tagalog, Sundanese, Sardinian). Keys are CLDR locale codes (see
pipeline.extract.countries.base_lang); each value is a real name of that country in that
language, never a patch for one item.

Recurring choices, in every language:
- England, Scotland and Wales -> GB (the UK's nations; ISO has no code of their own).
- Plain "Korea" -> KR: in food contexts it means South Korea (North Korea's full name is longer
  and wins as the longer match).
- Plain "Congo" -> CG, as ISO 3166's short name "Congo" (and the English gazetteer) does; the
  Democratic Republic's full names are added as CD so that they win as the longer match.
- "Palestine" -> PS and "Hong Kong" -> HK: CLDR only has the long forms ("Palestinian
  Territories", "Hong Kong SAR China"), and CLDR's names with a bracketed part ("Myanmar (Burma)")
  never match the short form alone."""

from __future__ import annotations

# WorldCuisines prompt-language codes -> the CLDR locale of their country names.
LOCALE_OF = {
    "zh_cn": "zh",
    "yue": "yue",
    # Hokkien answers (and the dataset's gold strings) are written in Simplified characters.
    "nan": "zh",
    "nan_spoken": "zh",
    "tl": "fil",
    "si_formal_spoken": "si",
    "su_loma": "su",
}

# Gazetteers an answer is searched with, beyond its own language (which comes first) and
# en/ru/uk: e.g. Sardinian answers often use Italian names.
EXTRA_SEARCH_LANGS: dict[str, tuple[str, ...]] = {
    # Chinese answers mix Simplified and Traditional characters.
    "zh": ("zh_Hant",),
    # Cantonese uses Hong Kong names (意大利, 尼日利亞, 肯尼亞), then Taiwan's and Simplified ones.
    "yue": ("zh_Hant_HK", "zh_Hant", "zh"),
    # Sardinian answers are largely written with Italian names.
    "sc": ("it",),
    # CLDR has 12 Sundanese territory names; Sundanese uses Indonesian/Javanese-like names.
    "su": ("id", "jv"),
    # Javanese names mostly follow Indonesian.
    "jv": ("id",),
    # Azerbaijani answers often use the Turkish names (Japonya, İspanya, Almanya).
    "az": ("tr",),
    # Tagalog answers use the Spanish names too ("España").
    "fil": ("es",),
}

_ARABIC = {
    # Short forms and common spellings CLDR lacks.
    "كوريا": "KR",
    "إنجلترا": "GB",
    "انجلترا": "GB",
    "إنكلترا": "GB",
    "اسكتلندا": "GB",
    "ويلز": "GB",
    "المجر": "HU",
    "الدنمارك": "DK",
    "السعودية": "SA",
    "الكونغو": "CG",
    "الكونغو الديمقراطية": "CD",
    "جمهورية الكونغو الديمقراطية": "CD",
    "فلسطين": "PS",
    "ميانمار": "MM",
    "هونغ كونغ": "HK",
    "هونج كونج": "HK",
    "تيمور الشرقية": "TL",
    "أنتيغوا وباربودا": "AG",
    "أوروغواي": "UY",
    "بريطانيا": "GB",
    "بريطانيا العظمى": "GB",
    "أمريكا": "US",
    "أميركا": "US",
    "فرانسه": "FR",
    "هند": "IN",
    # Demonyms used as answers ("صينية" is left out: it also means "tray", a common dish word).
    "صيني": "CN",
    "الصيني": "CN",
    "ألماني": "DE",
    "ألمانية": "DE",
    "ياباني": "JP",
    "يابانية": "JP",
    "إيطالي": "IT",
    "إيطالية": "IT",
    "كوري": "KR",
    "كورية": "KR",
    "هندي": "IN",
    "مكسيكي": "MX",
}

_AZERBAIJANI = {
    # Short forms and the UK's nations.
    "Koreya": "KR",
    "Cənubi Afrika": "ZA",
    "İngiltərə": "GB",
    "Şotlandiya": "GB",
    "Uels": "GB",
    "Honq Konq": "HK",
    "Konqo": "CG",
    "Fələstin": "PS",
    "Antigua və Barbuda": "AG",
    "Baham": "BS",
    # Spellings after the Russian names, and the usual abbreviation of the United States.
    "Fransiya": "FR",
    "Japoniya": "JP",
    "İndiya": "IN",
    "Böyük Britaniya": "GB",
    "ABŞ": "US",
    # Demonyms ("alman mətbəxi"); suffixes are allowed after Azerbaijani names.
    "Alman": "DE",
    "Yapon": "JP",
    "İtalyan": "IT",
    "Fransız": "FR",
    "İngilis": "GB",
    "İngiliz": "GB",
}

_BENGALI = {
    "যুক্তরাষ্ট্র": "US",
    "আমেরিকা": "US",
    # Short forms and spellings other than CLDR's.
    "কোরিয়া": "KR",
    "ইংল্যান্ড": "GB",
    "স্কটল্যান্ড": "GB",
    "ওয়েলস": "GB",
    "মায়ানমার": "MM",
    "ইসরাইল": "IL",
    "উত্তর মেসিডোনিয়া": "MK",
    "কঙ্গো": "CG",
    "চেক প্রজাতন্ত্র": "CZ",
    "জিম্বাবুয়ে": "ZW",
    "জ্যামাইকা": "JM",
    "ডোমিনিকান প্রজাতন্ত্র": "DO",
    "পূর্ব তিমুর": "TL",
    "ফিলিস্তিন": "PS",
    "বসনিয়া এবং হার্জেগোভিনা": "BA",
    "বাহামাস": "BS",
    "হংকং": "HK",
    # Demonyms.
    "জার্মান": "DE",
    "চীনা": "CN",
    "জাপানি": "JP",
}

_CZECH = {
    "Italsko": "IT",
    "Spaněl": "ES",
    # Short forms, older official names and the UK's nations (case forms come from pipeline.extract.czech).
    "Anglie": "GB",
    "Skotsko": "GB",
    "Velká Británie": "GB",
    "Hongkong": "HK",
    "Kongo": "CG",
    "Demokratická republika Kongo": "CD",
    "Palestina": "PS",
    "Jižní Afrika": "ZA",
    "Česká republika": "CZ",
    "Holandsko": "NL",
    # The Czech lands, a plural name, in every case.
    "Čechy": "CZ",
    "Čech": "CZ",
    "Čechám": "CZ",
    "Čechách": "CZ",
    "Čechami": "CZ",
    "Morava": "CZ",
    # The United States, a plural name: "ve Spojených státech".
    "Spojené státy": "US",
    "Spojených států": "US",
    "Spojeným státům": "US",
    "Spojených státech": "US",
    "Spojenými státy": "US",
}

# Stems of Czech country adjectives ("s čínskou kuchyní", "česká země"); every singular form is searched.
CZECH_ADJECTIVE_STEMS = {
    "česk": "CZ", "slovensk": "SK", "polsk": "PL", "německ": "DE", "rakousk": "AT", "švýcarsk": "CH",
    "maďarsk": "HU", "rusk": "RU", "ukrajinsk": "UA", "italsk": "IT", "francouzsk": "FR", "španělsk": "ES",
    "portugalsk": "PT", "řeck": "GR", "tureck": "TR", "britsk": "GB", "anglick": "GB", "skotsk": "GB",
    "irsk": "IE", "nizozemsk": "NL", "holandsk": "NL", "belgick": "BE", "švédsk": "SE", "norsk": "NO",
    "dánsk": "DK", "finsk": "FI", "gruzínsk": "GE", "arménsk": "AM", "libanonsk": "LB", "izraelsk": "IL",
    "íránsk": "IR", "syrsk": "SY", "egyptsk": "EG", "marock": "MA", "etiopsk": "ET", "nigerijsk": "NG",
    "indick": "IN", "pákistánsk": "PK", "nepálsk": "NP", "čínsk": "CN", "japonsk": "JP", "korejsk": "KR",
    "thajsk": "TH", "vietnamsk": "VN", "indonésk": "ID", "filipínsk": "PH", "malajsk": "MY",
    "mongolsk": "MN", "mexick": "MX", "americk": "US", "kanadsk": "CA", "brazilsk": "BR",
    "argentinsk": "AR", "peruánsk": "PE", "kolumbijsk": "CO", "kubánsk": "CU", "jamajsk": "JM",
    "australsk": "AU", "italiánsk": "IT", "anglosask": "GB", "havajsk": "US",
}  # fmt: skip

_SPANISH = {
    # Short forms, longer official names and the UK's nations.
    "Corea": "KR",
    "Inglaterra": "GB",
    "Escocia": "GB",
    "Gales": "GB",
    "Arabia Saudita": "SA",
    "Palestina": "PS",
    "República Checa": "CZ",
    "Timor Oriental": "TL",
    # Demonyms ("cocina alemana"); "español(a)" is left out as it names the language too.
    "Alemana": "DE",
    "Alemán": "DE",
    "Japonesa": "JP",
    "Japonés": "JP",
    "Coreana": "KR",
    "Coreano": "KR",
    "Mexicana": "MX",
    "Mexicano": "MX",
}

_FILIPINO = {
    "Italyano": "IT",
    "Italyana": "IT",
    "Tsino": "CN",
    "Intsik": "CN",
    "Amerikano": "US",
    "Amerika": "US",
    "Pranses": "FR",
    "Koreano": "KR",
    "Mehikano": "MX",
    "Espanyol": "ES",
    "Pilipinas": "PH",
    "Pilipino": "PH",
    "Filipino": "PH",
    # Tagalog names; CLDR's fil list is mostly English.
    # "Hapon" also means "afternoon" in Tagalog: a possible false JP in answers about meal times.
    "Hapon": "JP",
    "Hapones": "JP",
    "Tsina": "CN",
    "Pransya": "FR",
    "Italya": "IT",
    "Espanya": "ES",
    "Alemanya": "DE",
    "Aleman": "DE",
    "Gresya": "GR",
    "Inglatera": "GB",
    "Ehipto": "EG",
    "Timog Aprika": "ZA",
    "Antigua at Barbuda": "AG",
    "Bosnia at Herzegovina": "BA",
    "Republika ng Dominican": "DO",
}

_FRENCH = {
    # Short forms and the UK's nations.
    "Corée": "KR",
    "Angleterre": "GB",
    "Écosse": "GB",
    "Pays de Galles": "GB",
    "République tchèque": "CZ",
    # Demonyms in the feminine ("cuisine chinoise"); the masculine ones also name languages.
    "chinoise": "CN",
    "allemande": "DE",
    "japonaise": "JP",
    "italienne": "IT",
    "coréenne": "KR",
    "mexicaine": "MX",
}

_HINDI = {
    "अमेरिका": "US",
    "अमरीका": "US",
    "इंडिया": "IN",
    "हिंदुस्तान": "IN",
    # Spellings without nukta or with other vowels than CLDR's, and short forms.
    "अफ़ग़ानिस्तान": "AF",
    "अफगानिस्तान": "AF",
    "इंग्लैंड": "GB",
    "स्कॉटलैंड": "GB",
    "वेल्स": "GB",
    "उज्बेकिस्तान": "UZ",
    "उत्तरी मैसिडोनिया": "MK",
    "उरुग्वे": "UY",
    "एंटीगुआ और बारबुडा": "AG",
    "कांगो": "CG",
    "कोरिया": "KR",
    "ग्रीस": "GR",
    "चेक गणराज्य": "CZ",
    "जिम्बाब्वे": "ZW",
    "तुर्की": "TR",
    "दक्षिण अफ्रीका": "ZA",
    "न्यूजीलैंड": "NZ",
    "न्यूज़ीलैंड": "NZ",
    "पूर्वी तिमोर": "TL",
    "प्यूर्टो रिको": "PR",
    "फिनलैंड": "FI",
    "फिलिस्तीन": "PS",
    "फिलीपींस": "PH",
    "फ्रांस": "FR",
    "बोस्निया और हर्जेगोविना": "BA",
    "मेक्सिको": "MX",
    "म्यांमार": "MM",
    "वेनेजुएला": "VE",
    "स्विट्जरलैंड": "CH",
    "हांगकांग": "HK",
    # Demonyms ("चीनी" is left out: it also means "sugar").
    "जर्मन": "DE",
    "जापानी": "JP",
    "इतालवी": "IT",
    "कोरियाई": "KR",
}

_INDONESIAN = {
    # Malay spellings models mix into Indonesian answers.
    "Amerika Syarikat": "US",
    "Amerika": "US",
    "Jepun": "JP",
    "Itali": "IT",
    "Itália": "IT",
    "Perancis": "FR",
    "Tanah Melayu": "MY",
    # Everyday names CLDR lacks ("Tionghoa" is the Chinese people/culture, "Inggris" England/UK).
    "Tionghoa": "CN",
    "Cina": "CN",
    "Inggris": "GB",
    "Britania Raya": "GB",
    "Skotlandia": "GB",
    "Palestina": "PS",
    "Kongo": "CG",
    "Republik Demokratik Kongo": "CD",
    # "Chili" (KBBI spelling of Chile) is left out on purpose: in the models' Indonesian, Javanese
    # and Sundanese answers it was always the dish or the pepper (55 of 55), never the country.
}

_ITALIAN = {
    # Short forms, older names and the UK's nations (Sardinian answers are searched with these too).
    "Corea": "KR",
    "Sud Africa": "ZA",
    "Inghilterra": "GB",
    "Scozia": "GB",
    "Galles": "GB",
    "Malesia": "MY",
    "Palestina": "PS",
    "Porto Rico": "PR",
    "Repubblica Ceca": "CZ",
    # Demonyms ("cucina cinese").
    "Cinese": "CN",
    "Tedesco": "DE",
    "Tedesca": "DE",
    "Giapponese": "JP",
    "Coreano": "KR",
    "Coreana": "KR",
    "Messicano": "MX",
    "Messicana": "MX",
}

_JAPANESE = {
    "アメリカ": "US",
    "米国": "US",
    "英国": "GB",
    "中華": "CN",
    # The UK's nations, short forms of CLDR's bracketed names, Congo.
    "イングランド": "GB",
    "スコットランド": "GB",
    "ウェールズ": "GB",
    "ミャンマー": "MM",
    "香港": "HK",
    "パレスチナ": "PS",
    "コンゴ": "CG",
    "コンゴ共和国": "CG",
    "コンゴ民主共和国": "CD",
}

_JAVANESE = {
    "Amérika Sarékat": "US",
    "Amerika Serikat": "US",
    "Japàna": "JP",
    "Jepang": "JP",
    # Javanese spellings (Indonesian names are searched too).
    "Honggaria": "HU",
    "Timor-Wétan": "TL",
    "Timor Wétan": "TL",
    "Bosnia lan Herzegovina": "BA",
}

_KOREAN = {
    # Short forms and older transliterations still in wide use (터키, 호주).
    "한국": "KR",
    "잉글랜드": "GB",
    "스코틀랜드": "GB",
    "웨일스": "GB",
    "터키": "TR",
    "호주": "AU",
    "에리트레아": "ER",
    "콩고": "CG",
    "콩고 공화국": "CG",
    "콩고공화국": "CG",
    "콩고 민주 공화국": "CD",
    "콩고민주공화국": "CD",
    "팔레스타인": "PS",
    "홍콩": "HK",
}

_MARATHI = {
    "महाराष्ट्र": "IN",
    "अमेरिका": "US",
    "इंडिया": "IN",
    "अफगाणिस्तान": "AF",
    "अफगानिस्तान": "AF",
    # Spellings other than CLDR's, short forms and the UK's nations.
    "अँटिग्वा आणि बारबुडा": "AG",
    "अल्जेरिया": "DZ",
    "आर्मेनिया": "AM",
    "इंग्लंड": "GB",
    "स्कॉटलंड": "GB",
    "वेल्स": "GB",
    "इस्राएल": "IL",
    "उत्तर मॅसिडोनिया": "MK",
    "काँगो": "CG",
    "कोरिया": "KR",
    "कोलंबिया": "CO",
    "क्युबा": "CU",
    "झेक प्रजासत्ताक": "CZ",
    "ट्युनिशिया": "TN",
    "तुर्की": "TR",
    "पूर्व तिमोर": "TL",
    "पॅलेस्टाईन": "PS",
    "प्यूर्टो रिको": "PR",
    "बहामास": "BS",
    "बोस्निया आणि हर्जेगोविना": "BA",
    "ब्राझील": "BR",
    "म्यानमार": "MM",
    "लाटविया": "LV",
    "सिरिया": "SY",
    "सौदी अरेबिया": "SA",
    "हाँगकाँग": "HK",
    # Demonyms.
    "जर्मन": "DE",
}

_RUSSIAN = {
    # Short forms (CLDR has "Мьянма (Бирма)", "Южно-Африканская Республика", "Конго - Браззавиль").
    "Мьянма": "MM",
    "Южная Африка": "ZA",
    "Конго": "CG",
}

_SARDINIAN = {
    "Sardigna": "IT",
    "Sardegna": "IT",
    "Regnu Unidu": "GB",
    "Messicu": "MX",
    # Sardinian spellings other than CLDR's (Italian names are searched too).
    "Afganistan": "AF",
    "Brasili": "BR",
    "Cìpru": "CY",
    "Egittu": "EG",
    "Libanu": "LB",
    "Maroccu": "MA",
    "Nova Zelanda": "NZ",
    "Paraguai": "PY",
    "Uruguai": "UY",
    "Portugallu": "PT",
    "Pulonia": "PL",
    "Regnu Unitu": "GB",
    "Scozzia": "GB",
    # Literally "Southern Africa": used for the country here, but may also mean the region.
    "Àfrica Meridionale": "ZA",
}

_SINHALA = {
    # Stems without the final -ය/-ව, which case endings replace ("කොරියාවේ", "පාකිස්ථානයේ").
    "චීන": "CN",
    "කොරියා": "KR",
    "ඉංග්ලන්ත": "GB",
    "ස්කොට්ලන්ත": "GB",
    "වේල්ස": "GB",
    "පාකිස්ථාන": "PK",
    "මියන්මාර": "MM",
    "අෆ්ගනිස්ථාන": "AF",
    "ඇන්ටිගුවා සහ බාබුඩා": "AG",
    "ඔස්ට්\u200dරේලියා": "AU",
    "ඔස්ට්රේලියා": "AU",
    "කොංගෝ": "CG",
    "කොලොම්බියා": "CO",
    "ගුවාතමාලා": "GT",
    "චෙක් ජනරජ": "CZ",
    "ටෝගෝ": "TG",
    "ඩොමිනිකානු ජනරජ": "DO",
    "තජිකිස්ථාන": "TJ",
    "නැගෙනහිර ටිමෝර්": "TL",
    "පරාගුවේ": "PY",
    "පලස්තීන": "PS",
    "වෙනසියුලා": "VE",
    "සවුදි අරාබි": "SA",
    "හංගේරියා": "HU",
    "හොංකොං": "HK",
    # Demonyms.
    "ජර්මන්": "DE",
}

_SUNDANESE = {
    # "Sunda" is West Java's people and land: a Sundanese dish is Indonesian.
    "Sunda": "ID",
    # Sundanese names (Indonesian and Javanese ones are searched too).
    "Perancis": "FR",
    "Pilipina": "PH",
    "Libanon": "LB",
    "Usbekistan": "UZ",
    "Makedonia Kalér": "MK",
    "Antigua sareng Barbuda": "AG",
    "Bosnia jeung Herzegovina": "BA",
}

_THAI = {
    "อเมริกา": "US",
    # Short forms and the UK's nations. No word boundaries in Thai: "อังกฤษ" also matches
    # "ภาษาอังกฤษ" (the English language).
    "เกาหลี": "KR",
    "อังกฤษ": "GB",
    "สกอตแลนด์": "GB",
    "เวลส์": "GB",
    "นิวเซาท์เวลส์": "AU",  # New South Wales, so that it is not read as Wales
    "พม่า": "MM",
    "ฮ่องกง": "HK",
    "ปาเลสไตน์": "PS",
    "คองโก": "CG",
    "สาธารณรัฐประชาธิปไตยคองโก": "CD",
    # Demonyms.
    "เยอรมัน": "DE",
}

_YORUBA = {
    "Egypti": "EG",
    "Íjíbítì": "EG",
    "Amẹrika": "US",
    "Amẹ́ríkà": "US",
    # Spellings other than CLDR's.
    "Ástríà": "AT",
    "Ástrálíà": "AU",
    "Bẹ́ljíọ̀mù": "BE",
    "Bosnia àti Herzegovina": "BA",
    "Antigua àti Barbuda": "AG",
}

_CHINESE_SIMPLIFIED = {
    # The UK's nations, short forms of CLDR's long names, Congo.
    "英格兰": "GB",
    "苏格兰": "GB",
    "威尔士": "GB",
    "香港": "HK",
    "巴勒斯坦": "PS",
    "刚果": "CG",
    "刚果共和国": "CG",
    "刚果民主共和国": "CD",
    "刚果金": "CD",
    "刚果布": "CG",
}

_CHINESE_TRADITIONAL = {
    # The same in Traditional characters, plus 韓國 (CLDR: 南韓).
    "英格蘭": "GB",
    "蘇格蘭": "GB",
    "威爾斯": "GB",
    "威爾士": "GB",
    "香港": "HK",
    "巴勒斯坦": "PS",
    "剛果": "CG",
    "剛果共和國": "CG",
    "剛果民主共和國": "CD",
    "韓國": "KR",
}

ALIASES_WORLD: dict[str, dict[str, str]] = {
    "ar": _ARABIC,
    "az": _AZERBAIJANI,
    "bn": _BENGALI,
    "cs": _CZECH,
    "es": _SPANISH,
    "fil": _FILIPINO,
    "fr": _FRENCH,
    "hi": _HINDI,
    "id": _INDONESIAN,
    "it": _ITALIAN,
    "ja": _JAPANESE,
    "jv": _JAVANESE,
    "ko": _KOREAN,
    "mr": _MARATHI,
    "ru": _RUSSIAN,
    "sc": _SARDINIAN,
    "si": _SINHALA,
    "su": _SUNDANESE,
    "th": _THAI,
    "yo": _YORUBA,
    "zh": _CHINESE_SIMPLIFIED,
    "zh_Hant": _CHINESE_TRADITIONAL,
    "zh_Hant_HK": _CHINESE_TRADITIONAL,
    "yue": _CHINESE_TRADITIONAL,
}
