from senso.admire.systems.compound import compound_words, find_compound, mask, substitute


def test_inflection_case_and_hyphenation():
    assert find_compound("We went to two hen parties last May.", "hen party").text == "hen parties"
    assert find_compound("Wet blankets, all of them.", "wet blanket").text == "Wet blankets"
    assert find_compound("two-way streets are risky", "two-way street").text == "two-way streets"
    assert find_compound("flower children placing daisies", "flower child").text == "flower children"
    assert find_compound("he is such a copycat", "copy cat").text == "copycat"
    assert find_compound("the cat's eyes on the road", "cat's eyes").text == "cat's eyes"


def test_portuguese_lost_hyphens_accents_and_agreement():
    assert find_compound("guardou um pé de meia", "pé-de-meia").text == "pé de meia"
    assert find_compound("os pés-de-meia", "pé de meia").text == "pés-de-meia"
    assert find_compound("Mercados Negros crescem", "mercado negro").text == "Mercados Negros"
    assert find_compound("uma ovelha negra", "ovelha negra").text == "ovelha negra"


def test_span_indexes_the_original_sentence():
    sentence = "Não é um pé frio, é um pé quente."
    span = find_compound(sentence, "pé quente")
    assert sentence[span.start:span.end] == "pé quente"


def test_word_boundaries_and_absence():
    assert find_compound("a category error", "cat") is None
    assert find_compound("nothing here", "night owl") is None
    assert substitute("nothing here", "night owl", "x") is None


def test_substitute_and_mask():
    assert substitute("I am a night owl, sadly.", "night owl", "late sleeper") == "I am a late sleeper, sadly."
    assert mask("I am a night owl.", "night owl") == "I am a ___."
    assert compound_words("pain-in_the neck") == ["pain", "in", "the", "neck"]
