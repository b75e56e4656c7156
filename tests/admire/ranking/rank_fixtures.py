"""A small multilingual ranking data set in AdMIRe 2's layout, written by the tests: per-language TSVs with AdMIRe
1's columns (train with gold, test without), one folder of tiny PNGs per expression, and a task file naming them.
Russian, Greek and Chinese: three scripts, none Latin. Each language has three expressions, each in an idiomatic and
a literal sentence; `idiom_id` links the same expression across languages (XMPIE's parallel design)."""

from __future__ import annotations

import csv
from pathlib import Path

LANGS = {
    "ru": [("i1", "белая ворона", "Он всегда был белой вороной в классе.", "На снегу сидела белая ворона.",
            ["человек не такой как все", "одинокий чудак", "белая птица на снегу", "чёрная птица", "стол"]),
           ("i2", "золотые руки", "У моего деда золотые руки, он всё чинит.", "Статуя держит золотые руки.",
            ["умелый мастер чинит часы", "человек работает", "руки из золота", "золотое кольцо", "облако"]),
           ("i3", "тёмная лошадка", "Новый кандидат оказался тёмной лошадкой.", "В поле паслась тёмная лошадка.",
            ["неизвестный участник побеждает", "загадочный человек", "тёмная лошадь в поле", "белая лошадь", "море"])],
    "el": [("i1", "μαύρο πρόβατο", "Ήταν πάντα το μαύρο πρόβατο της οικογένειας.", "Ένα μαύρο πρόβατο βόσκει.",
            ["άνθρωπος διαφορετικός από την οικογένεια", "μοναχικός άνθρωπος", "μαύρο πρόβατο στο λιβάδι",
             "λευκό πρόβατο", "καρέκλα"]),
           ("i2", "χρυσά χέρια", "Ο παππούς μου έχει χρυσά χέρια.", "Το άγαλμα έχει χρυσά χέρια.",
            ["ικανός τεχνίτης επισκευάζει", "άνθρωπος δουλεύει", "χέρια από χρυσό", "χρυσό δαχτυλίδι", "σύννεφο"]),
           ("i3", "σκοτεινό άλογο", "Ο νέος υποψήφιος ήταν σκοτεινό άλογο.", "Ένα σκοτεινό άλογο τρέχει.",
            ["άγνωστος συμμετέχων κερδίζει", "μυστηριώδης άνθρωπος", "σκοτεινό άλογο στο χωράφι", "λευκό άλογο",
             "θάλασσα"])],
    "zh": [("i1", "害群之马", "他是班上的害群之马。", "草原上有一匹害群之马在吃草。",
            ["一个带坏集体的人", "捣乱的学生", "草原上的一匹马", "一群羊", "桌子"]),
           ("i2", "一双巧手", "奶奶有一双巧手，什么都会做。", "雕像有一双巧手。",
            ["能干的工匠在修表", "人在工作", "雕像的手", "金戒指", "云"]),
           ("i3", "黑马", "这位新候选人是一匹黑马。", "田野里有一匹黑马。",
            ["不知名的选手获胜", "神秘的人", "田野里的黑色马", "白马", "大海"])],
}
IDIOMATIC = [0, 1, 2, 3, 4]  # caption positions best first for an idiomatic sentence
LITERAL = [2, 3, 0, 1, 4]
COLUMNS = ["compound", "subset", "sentence_type", "sentence", "expected_order"] + [
    c for n in range(1, 6) for c in (f"image{n}_name", f"image{n}_caption")] + ["idiom_id"]


def _png(path: Path, shade: int) -> None:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (4, 4), (shade, 255 - shade, 128)).save(path)


def rows(lang: str, gold: bool, which: str) -> list[dict[str, str]]:
    out = []
    for number, (idiom_id, compound, idiomatic, literal, captions) in enumerate(LANGS[lang]):
        names = [f"{idiom_id}_{k}.png" for k in range(1, 6)]
        for kind, sentence, best in (("idiomatic", idiomatic, IDIOMATIC), ("literal", literal, LITERAL)):
            if (which == "train") != (number < 2):  # two expressions train, one test
                continue
            row = {"compound": compound, "subset": which, "sentence": sentence, "idiom_id": idiom_id,
                   "sentence_type": kind if gold else "",
                   "expected_order": repr([names[k] for k in best]) if gold else ""}
            for n, (name, caption) in enumerate(zip(names, captions), start=1):
                row[f"image{n}_name"], row[f"image{n}_caption"] = name, caption
            out.append(row)
    return out


def write_rows(path: Path, data: list[dict[str, str]], columns: list[str] = COLUMNS, delimiter: str = "\t") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, delimiter=delimiter, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(data)
    return path


TASK = '''kind = "ranking"
name = "tiny-admire2"
description = "three languages in AdMIRe 2's layout"
sentence_type = true
metrics = ["top1", "dcg", "ndcg", "sentence_type_accuracy", "sentence_type_macro_f1"]
pair = "idiom_id"
{extra}
'''
ENTRY = '''
[[data]]
file = "{lang}/{split}.tsv"
language = "{lang}"
split = "{split}"
images = "{lang}/images"
'''


def write_dataset(root: Path, extra: str = "", langs: tuple[str, ...] = tuple(LANGS)) -> Path:
    """The data set under `root` and its task file `root/task.toml` (returned)."""
    for lang in langs:
        for split in ("train", "test"):
            data = rows(lang, gold=split == "train", which=split)
            write_rows(root / lang / f"{split}.tsv", data)
            for row in data:
                for n in range(1, 6):
                    _png(root / lang / "images" / row["compound"] / row[f"image{n}_name"], 40 * n)
    text = TASK.format(extra=extra) + "".join(ENTRY.format(lang=lang, split=split) for lang in langs
                                               for split in ("train", "test"))
    path = root / "task.toml"
    path.write_text(text, encoding="utf-8")
    return path
