import pytest

from senso.likert.data import AbricotItem, load_abricot
from senso.core.errors import SensoError
from senso.likert.task import (
    build_prompts, exemplar_positions, get_task, gold_label, render_prompt, select_exemplars,
)

EXPECTED_ABS = (
    "Assegna un valore di astrazione da 1 a 5 alla parola cane nel contesto della frase seguente:\n"
    "Il cane dorme.\n"
    "Descrizione dei valori:\n"
    "1 - La parola è estremamente concreta (e.g. un cane specifico)\n"
    "2 - La parola è lievemente concreta (e.g. un cane di una certa razza)\n"
    "3 - La parola è neutra (e.g. un cane tra tanti)\n"
    "4 - La parola è lievemente astratta (e.g. un cane è un animale da compagnia)\n"
    "5 - La parola è estremamente astratta (e.g. il cane è un mammifero)\n"
    "\n"
    "Rispondi esclusivamente con il numero scelto senza aggiungere nessuna spiegazione\n"
)


def item(i, lemma, abs_mean, inc_mean=0.5):
    return AbricotItem(f"{lemma.upper()}_{i}", "opensub", "Il cane dorme.", 3, 6, "cane", lemma,
                       abs_mean, 0.1, inc_mean, 0.1)


def test_prompt_byte_for_byte():
    assert render_prompt(item(1, "cane", 0.3), get_task("abricot-abs")) == EXPECTED_ABS
    inc = render_prompt(item(1, "cane", 0.3), get_task("abricot-inc"))
    expected_inc = (EXPECTED_ABS.replace("astrazione", "inclusività")
                    .replace("estremamente concreta", "estremamente specifica")
                    .replace("lievemente concreta", "lievemente specifica")
                    .replace("lievemente astratta", "lievemente inclusiva")
                    .replace("estremamente astratta", "estremamente inclusiva"))
    assert inc == expected_inc


@pytest.mark.parametrize("mean, label", [
    (0.0, 1), (0.09, 1), (0.1, 1), (0.11, 2), (0.3, 3), (0.5, 3), (0.7, 5), (0.69, 4), (0.9, 5), (1.0, 5),
])
def test_gold_label_matches_official_rounding(mean, label):
    # 0.1*5 = 0.5 -> round half to even -> 0 -> 1; 0.5*5 = 2.5 -> 2 -> 3; 0.7*5 = 3.5 -> 4 -> min(4,4)+1 = 5
    assert gold_label(mean) == label


def test_exemplar_positions():
    assert exemplar_positions(120, 3) == [0, 60, 119]
    assert exemplar_positions(119, 3) == [0, 59, 118]
    assert exemplar_positions(10, 2) == [0, 9]
    assert exemplar_positions(10, 0) == []
    with pytest.raises(SensoError):
        exemplar_positions(2, 3)


def test_exemplars_other_lemmas_stable_sort():
    items = [item(1, "a", 0.5), item(2, "b", 0.2), item(3, "b", 0.5), item(4, "c", 0.9), item(5, "c", 0.2)]
    task = get_task("abricot-abs")
    chosen = select_exemplars(items, items[0], task, 3)
    # pool (lemmas b, c) sorted by abs_mean, ties in dataset order: B_2(0.2), C_5(0.2), B_3(0.5), C_4(0.9)
    assert [e.id for e in chosen] == ["B_2", "B_3", "C_4"]


def test_paper_prompt_layout():
    items = [item(1, "a", 0.5), item(2, "b", 0.2), item(3, "b", 0.5), item(4, "c", 0.9), item(5, "c", 0.2)]
    task = get_task("abricot-abs")
    prompt = build_prompts(items, task, "paper")[0]
    assert prompt.exemplar_ids == ("B_2", "B_3", "C_4")
    ex = [render_prompt(items[i], task) + " " + str(gold_label(items[i].abs_mean)) for i in (1, 2, 3)]
    assert prompt.context == "\n\n".join(ex) + "\n\n" + render_prompt(items[0], task)
    assert prompt.shared_prefix == "\n\n".join(ex) + "\n\n"
    assert prompt.continuations == (" 1", " 2", " 3", " 4", " 5")
    assert build_prompts(items, task, "calamita")[0].context == render_prompt(items[0], task)


def test_real_data_paper_exemplars_fixed_per_lemma(data_dir):
    items = load_abricot(data_dir / "abricot" / "dataset_it.csv")
    prompts = build_prompts(items, get_task("abricot-inc"), "paper")
    by_lemma = {}
    for it, p in zip(items, prompts):
        by_lemma.setdefault(it.target_lemma, set()).add(p.exemplar_ids)
        assert all(e.split("_")[0] != it.id.split("_")[0] for e in p.exemplar_ids)
    assert all(len(v) == 1 for v in by_lemma.values())
