from senso.admire.systems.compound import compound_words, find_compound, substitute


def _found(sentence: str, compound: str) -> str:
    return sentence[find_compound(sentence, compound)]


def test_inflection_case_and_hyphenation():
    assert _found("We went to two hen parties last May.", "hen party") == "hen parties"
    assert _found("Wet blankets, all of them.", "wet blanket") == "Wet blankets"
    assert _found("two-way streets are risky", "two-way street") == "two-way streets"
    assert _found("flower children placing daisies", "flower child") == "flower children"
    assert _found("he is such a copycat", "copy cat") == "copycat"
    assert _found("the cat's eyes on the road", "cat's eyes") == "cat's eyes"


def test_portuguese_lost_hyphens_accents_and_agreement():
    assert _found("guardou um pé de meia", "pé-de-meia") == "pé de meia"
    assert _found("os pés-de-meia", "pé de meia") == "pés-de-meia"
    assert _found("Mercados Negros crescem", "mercado negro") == "Mercados Negros"
    assert _found("uma ovelha negra", "ovelha negra") == "ovelha negra"


def test_span_indexes_the_original_sentence():
    assert _found("Não é um pé frio, é um pé quente.", "pé quente") == "pé quente"


def test_word_boundaries_and_absence():
    assert find_compound("a category error", "cat") is None
    assert find_compound("nothing here", "night owl") is None
    assert substitute("nothing here", "night owl", "x") is None


def test_substitute_and_cut_out():
    assert substitute("I am a night owl, sadly.", "night owl", "late sleeper") == "I am a late sleeper, sadly."
    assert substitute("I am a night owl.", "night owl", "") == "I am a ."
    assert compound_words("pain-in_the neck") == ["pain", "in", "the", "neck"]
