"""Image systems end to end on the real EN dev pictures, with a tiny random CLIP built here.

The scores mean nothing (random weights); the pipeline is real: loader -> image paths -> embeddings
(cached by content) -> ranking -> submission, metrics and a text+images run record.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from image_models import tiny_hf_dir
from senso.backends.cached import with_cache
from senso.backends.image_text import ImageTextModel
from senso.cli import app
from admire_fixtures import load_a
from senso.core.errors import SensoError
from senso.api import run as run_admire
from senso.core.cache import ResponseCache
from senso.catalog import RunOptions
from senso.core.records import load_results, load_samples

pytestmark = [pytest.mark.images, pytest.mark.real_data]


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "senso-cache"))
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture
def tiny_clip(tmp_path):
    return f"hf:{tiny_hf_dir(tmp_path / 'tiny-clip')}"


def test_clip_rank_on_real_dev_images(data_dir, tmp_path, tiny_clip):
    out = tmp_path / "clip"
    result = CliRunner().invoke(app, ["run", "admire-a", "--lang", "en", "--split", "dev", "--system", "clip-rank",
                                      "--image-model", tiny_clip, "--data-dir", str(data_dir), "--out", str(out),
                                      "--batch-size", "16"], terminal_width=200)
    assert result.exit_code == 0, result.output + repr(result.exception)
    results = load_results(out)
    assert results["track"] == "text+images" and results["n"] == 15
    assert results["model"]["system"] == "clip-rank" and results["model"]["image_model"]["spec"] == tiny_clip
    assert results["model"]["image_model"]["fingerprint"].startswith("hf:sha256:")
    for name in ("top1", "dcg"):
        assert results["metrics"][name]["ci_low"] <= results["metrics"][name]["value"] <= results["metrics"][name]["ci_high"]
    samples = load_samples(out)
    assert all(s["predicted_order"] == sorted(s["scores"], key=lambda k: -s["scores"][k]) for s in samples)
    assert (out / "submission_EN.tsv").exists()
    # resumes from the cache: nothing recomputed, same answers; and batch size changes no order
    again = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="clip-rank",
                                  image_model=tiny_clip, out=tmp_path / "again", batch_size=3))
    assert load_results(again)["cache"]["misses"] == 0
    assert [s["predicted_order"] for s in load_samples(again)] == [s["predicted_order"] for s in samples]
    uncached = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="clip-rank", no_cache=True,
                                     image_model=tiny_clip, out=tmp_path / "uncached", batch_size=1, limit=4))
    assert [s["predicted_order"] for s in load_samples(uncached)] == [s["predicted_order"] for s in samples[:4]]


def test_fusion_of_captions_and_images_is_on_the_image_track(data_dir, tmp_path, tiny_clip):
    out = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="fusion", image_model=tiny_clip,
                                limit=3, out=tmp_path / "fusion",
                                system_options={"members": "caption-similarity,clip-rank", "weights": (1, 0.5)}))
    results = load_results(out)
    assert results["track"] == "text+images"
    assert len(results["model"]["members"]) == 2 and results["model"]["weights"] == [1.0, 0.5]
    sample = load_samples(out)[0]
    assert set(sample["extra"]["member_scores"]) == {"caption-similarity", "clip-rank"}
    with pytest.raises(SensoError, match="unknown fusion member 'nope'"):
        run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="fusion", image_model=tiny_clip,
                              out=tmp_path / "bad", system_options={"members": "clip-rank,nope"}))


def test_xeval_pictures_are_cached_by_content(data_dir, tmp_path, tiny_clip):
    """xeval shows the train/dev/test pictures under new file names: once dev is embedded, the xeval
    items of dev compounds need no image computed."""
    dev = load_a(data_dir, "en", "dev", need_images=True)
    xeval = [i for i in load_a(data_dir, "en", "xeval", need_images=True) if i.compound in {d.compound for d in dev}]
    assert xeval, "xeval should reuse dev compounds"
    assert {i.name for i in xeval[0].images}.isdisjoint({i.name for d in dev for i in d.images})
    cache = ResponseCache(tmp_path / "c.sqlite")
    with_cache(ImageTextModel(tiny_clip), cache).embed_images([i.path for d in dev for i in d.images])
    model = with_cache(ImageTextModel(tiny_clip), cache)
    model.embed_images([i.path for x in xeval for i in x.images])
    assert model.computed == 0


def test_image_systems_need_their_models(data_dir, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(SensoError, match="vlm-judge needs a vision-language model"):
        run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="vlm-judge", out=tmp_path / "v"))
    with pytest.raises(SensoError, match="no server; pass --base-url"):
        run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="vlm-judge",
                              generator="openai:qwen2.5-vl", out=tmp_path / "w"))


def test_vlm_judge_through_a_served_model_on_real_dev_images(data_dir, tmp_path):
    """vlm-judge end to end against a fake OpenAI-compatible server whose P(yes) depends on the picture
    it receives (its base64 length), so the expected ranking is computable here."""
    import base64
    import math

    from image_models import FakeServer, chat_response

    def p_yes(url: str) -> float:
        return (len(url) % 89 + 5) / 100

    def responder(body):
        url = body["messages"][0]["content"][0]["image_url"]["url"]
        p = p_yes(url)
        return 200, chat_response("Yes" if p > 0.5 else "No", [("Yes", math.log(p)), ("No", math.log(1 - p))])

    with FakeServer(model="vlm", responder=responder) as server:
        out = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="vlm-judge", limit=2,
                                    generator="openai:vlm", base_url=server.url, out=tmp_path / "vlm"))
        rerun = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="vlm-judge", limit=2,
                                      generator="openai:vlm", base_url=server.url, out=tmp_path / "vlm2"))
    assert len(server.bodies) == 10  # 2 items x 5 pictures, each asked once; the rerun came from the cache
    results = load_results(out)
    assert results["track"] == "text+images" and results["model"]["mode"] == "pointwise"
    assert results["model"]["vlm"]["served_model"] == "vlm"
    items = load_a(data_dir, "en", "dev", need_images=True)[:2]
    for item, sample in zip(items, load_samples(out)):
        expected = {i.name: p_yes("data:image/png;base64," + base64.b64encode(i.path.read_bytes()).decode()) for i in item.images}
        assert sample["scores"] == pytest.approx(expected)
        assert sample["predicted_order"] == sorted(expected, key=lambda n: (-expected[n], item.image_names.index(n)))
    assert load_samples(rerun) == load_samples(out)


def test_sense_pipeline_ranks_pictures(data_dir, tmp_path, tiny_clip):
    out = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="sense-pipeline", limit=3,
                                image_model=tiny_clip, out=tmp_path / "image", system_options={"ranker": "image"}))
    results = load_results(out)
    assert results["track"] == "text+images"
    assert results["model"]["ranker"]["name"] == "structure"
    assert results["model"]["ranker_evidence"]["evidence"] == "pictures"
    assert results["model"]["ranker_evidence"]["image_model"]["spec"] == tiny_clip
    samples = load_samples(out)
    assert all(set(s["extra"]["roles"]) == {"strong idiomatic", "mild idiomatic", "mild literal", "strong literal",
                                            "distractor"} for s in samples)
    sub = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="sense-pipeline", limit=3,
                                image_model=tiny_clip, out=tmp_path / "sub",
                                system_options={"ranker": "substitution", "modality": "images"}))
    assert load_results(sub)["track"] == "text+images"
    text = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="sense-pipeline", limit=3,
                                 out=tmp_path / "text"))
    assert load_results(text)["track"] == "text-only"
    # the sense decision comes from the text evidence either way
    assert [s["extra"]["sense"] for s in load_samples(text)] == [s["extra"]["sense"] for s in samples]
    with pytest.raises(SensoError, match="--modality: unknown value 'video'; choose from captions, images"):
        run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="sense-pipeline",
                              out=tmp_path / "bad", system_options={"modality": "video"}))


def test_ensemble_with_an_image_member_is_on_the_image_track(data_dir, tmp_path, tiny_clip):
    out = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="ensemble", limit=2,
                                image_model=tiny_clip, out=tmp_path / "ens",
                                system_options={"members": "caption-similarity,clip-rank"}))
    assert load_results(out)["track"] == "text+images"


def test_sequence_continuation_with_images_on_fixtures(tmp_path, tiny_clip):
    """Subtask B pictures are not in ../shared/data: a two-item split written here, with real PNGs."""
    from admire_fixtures import b_row, write_b_split
    from image_models import write_png

    rows = [b_row("red flag", first=50), b_row("blue moon", first=60, sentence_type="idiomatic")]
    root = write_b_split(tmp_path / "data", "train", rows)
    colours = [(230, 10, 10), (10, 230, 10), (10, 10, 230), (230, 230, 10), (128, 128, 128), (30, 30, 30)]
    for row in rows:
        folder = root / "admire" / "subtask_b" / "en" / "train" / row["compound"]
        names = ["s1.png", "s2.png"] + [row[f"image{n}_name"] for n in range(1, 5)]
        for name, colour in zip(names, colours):
            write_png(folder / name, colour)
    out = run_admire(RunOptions(task="admire-b", data_dir=root, split="train", system="sequence-continuation",
                                image_model=tiny_clip, out=tmp_path / "b", system_options={"modality": "images"}))
    results = load_results(out)
    assert results["track"] == "text+images" and results["model"]["modality"] == "images"
    for row, sample in zip(rows, load_samples(out)):
        assert sample["predicted_item"] in [row[f"image{n}_name"] for n in range(1, 5)]
        assert set(sample["extra"]["image_coherence"]) == set(sample["scores"])
    text_only = run_admire(RunOptions(task="admire-b", data_dir=root, split="train", system="sequence-continuation",
                                      out=tmp_path / "b-text"))
    assert load_results(text_only)["track"] == "text-only"
    assert [s["predicted_sentence_type"] for s in load_samples(text_only)] == \
        [s["predicted_sentence_type"] for s in load_samples(out)]


def test_vlm_judge_in_process_list_mode_on_real_dev_images(data_dir, tmp_path):
    from image_models import tiny_llava_dir

    llava = f"hf:{tiny_llava_dir(tmp_path / 'llava')}"
    out = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="vlm-judge", limit=1,
                                generator=llava, out=tmp_path / "list", system_options={"mode": "list", "orders": 5}))
    results = load_results(out)
    assert results["track"] == "text+images" and results["model"]["orders"] == 5 and results["model"]["aggregation"] == "borda"
    [sample] = load_samples(out)
    shown = [o["shown"] for o in sample["extra"]["orders"]]
    assert len(shown) == 5 and {tuple(s) for s in shown} == {tuple(shown[0][k:] + shown[0][:k]) for k in range(5)}
    assert sorted(sample["predicted_order"]) == sorted(sample["images"])
