"""Language codes of ranking task files, and which languages each AdMIRe system and part serves.

A language is an ISO 639-1 code (`el`), an ISO 639-3 code for a language without one (`yue`), or either with
a region (`pt-BR`, `es-EC`). Anything else is an error naming where it was written. `ANY` marks a system or part
that serves every language (it reads no language-specific resource: a multilingual embedder, string
matching, a seeded draw).
"""

from __future__ import annotations

import re

ANY = "any"

# ISO 639-1: every two-letter code, with its English name.
ISO_639_1 = dict(pair.split(":") for pair in (
    "aa:Afar ab:Abkhazian ae:Avestan af:Afrikaans ak:Akan am:Amharic an:Aragonese ar:Arabic as:Assamese av:Avaric "
    "ay:Aymara az:Azerbaijani ba:Bashkir be:Belarusian bg:Bulgarian bi:Bislama bm:Bambara bn:Bengali bo:Tibetan "
    "br:Breton bs:Bosnian ca:Catalan ce:Chechen ch:Chamorro co:Corsican cr:Cree cs:Czech cu:Church_Slavic "
    "cv:Chuvash cy:Welsh da:Danish de:German dv:Divehi dz:Dzongkha ee:Ewe el:Greek en:English eo:Esperanto "
    "es:Spanish et:Estonian eu:Basque fa:Persian ff:Fulah fi:Finnish fj:Fijian fo:Faroese fr:French "
    "fy:Western_Frisian ga:Irish gd:Scottish_Gaelic gl:Galician gn:Guarani gu:Gujarati gv:Manx ha:Hausa he:Hebrew "
    "hi:Hindi ho:Hiri_Motu hr:Croatian ht:Haitian hu:Hungarian hy:Armenian hz:Herero ia:Interlingua "
    "id:Indonesian ie:Interlingue ig:Igbo ii:Sichuan_Yi ik:Inupiaq io:Ido is:Icelandic it:Italian iu:Inuktitut "
    "ja:Japanese jv:Javanese ka:Georgian kg:Kongo ki:Kikuyu kj:Kuanyama kk:Kazakh kl:Kalaallisut kn:Kannada "
    "km:Khmer ko:Korean kr:Kanuri ks:Kashmiri ku:Kurdish kv:Komi kw:Cornish ky:Kyrgyz la:Latin "
    "lb:Luxembourgish lg:Ganda li:Limburgish ln:Lingala lo:Lao lt:Lithuanian lu:Luba-Katanga lv:Latvian "
    "mg:Malagasy mh:Marshallese mi:Maori mk:Macedonian ml:Malayalam mn:Mongolian mr:Marathi ms:Malay mt:Maltese "
    "my:Burmese na:Nauru nb:Norwegian_Bokmal nd:North_Ndebele ne:Nepali ng:Ndonga nl:Dutch nn:Norwegian_Nynorsk "
    "no:Norwegian nr:South_Ndebele nv:Navajo ny:Chichewa oc:Occitan oj:Ojibwa om:Oromo or:Oriya os:Ossetian "
    "pa:Punjabi pi:Pali pl:Polish ps:Pashto pt:Portuguese qu:Quechua rm:Romansh rn:Rundi ro:Romanian ru:Russian "
    "rw:Kinyarwanda sa:Sanskrit sc:Sardinian sd:Sindhi se:Northern_Sami sg:Sango si:Sinhala sk:Slovak "
    "sl:Slovenian sm:Samoan sn:Shona so:Somali sq:Albanian sr:Serbian ss:Swati st:Southern_Sotho su:Sundanese "
    "sv:Swedish sw:Swahili ta:Tamil te:Telugu tg:Tajik th:Thai ti:Tigrinya tk:Turkmen tl:Tagalog tn:Tswana "
    "to:Tonga tr:Turkish ts:Tsonga tt:Tatar tw:Twi ty:Tahitian ug:Uyghur uk:Ukrainian ur:Urdu uz:Uzbek ve:Venda "
    "vi:Vietnamese vo:Volapuk wa:Walloon wo:Wolof xh:Xhosa yi:Yiddish yo:Yoruba za:Zhuang zh:Chinese zu:Zulu"
).split())
# ISO 639-3 codes of languages without a two-letter code that idiom data sets carry.
ISO_639_3 = {"yue": "Cantonese", "fil": "Filipino", "ast": "Asturian", "hsb": "Upper_Sorbian", "szl": "Silesian",
             "nap": "Neapolitan", "scn": "Sicilian", "pcm": "Nigerian_Pidgin", "ckb": "Central_Kurdish",
             "tok": "Toki_Pona", "lij": "Ligurian", "vec": "Venetian"}
_CODE = re.compile(r"^(?P<language>[a-z]{2,3})(?:[-_](?P<region>[A-Za-z]{2}|[0-9]{3}))?$")


class LanguageCodeError(ValueError):
    """A code that is not ISO 639 (with an optional region); the message says what would be."""


def check_language(code: object) -> str:
    """`code` written canonically (`pt_br` -> `pt-BR`); LanguageCodeError for anything that is not ISO 639."""
    match = _CODE.match(code) if isinstance(code, str) else None
    if match is None:
        raise LanguageCodeError(f"{code!r} is not a language code: write an ISO 639-1 code such as \"el\", an ISO "
                                "639-3 code such as \"yue\", or either with a region such as \"pt-BR\"")
    language, region = match.group("language"), match.group("region")
    if language not in ISO_639_1 and language not in ISO_639_3:
        where = f"{code}: " if region else ""
        raise LanguageCodeError(f"{where}{language!r} is not an ISO 639-1 code (nor a listed ISO 639-3 code); "
                                "e.g. zh (Chinese), ka (Georgian), el (Greek), ig (Igbo), kk (Kazakh), no "
                                "(Norwegian), pt (Portuguese), ru (Russian), sr (Serbian), sk (Slovak), sl "
                                "(Slovenian), es (Spanish), tr (Turkish), uz (Uzbek)")
    return language + (f"-{region.upper()}" if region else "")


def base_language(code: str) -> str:
    """The language without its region: `pt-BR` -> `pt`."""
    return code.split("-")[0]


def language_name(code: str) -> str:
    base = base_language(code)
    return (ISO_639_1.get(base) or ISO_639_3.get(base, base)).replace("_", " ")


def serves(languages: tuple[str, ...] | str, code: str) -> bool:
    """Whether a declaration (ANY, or base codes) covers the language `code`."""
    return languages == ANY or base_language(code) in languages
