"""The travel block of a Likert run page: shown from a supervised run's `generalisation`, absent otherwise."""

from __future__ import annotations

import hashlib
import json

import numpy as np
from conftest import write_abricot_data

from senso.backends.embedders import Embedder
from senso.likert.page import travel_block
from senso.reporting.run_folder import load_run
from senso.reporting.run_page import run_context, write_run_report


def _hash_embed(texts, kind):
    return np.asarray([np.random.default_rng(int.from_bytes(hashlib.sha256(f"{kind}|{t}".encode()).digest()[:8],
                                                             "little")).normal(size=8) for t in texts], dtype=np.float32)


def test_supervised_run_page_shows_the_travel_table(tmp_path, monkeypatch, abricot_runs):
    from senso.api import evaluate

    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(Embedder, "_compute", lambda self, texts, kind: _hash_embed(texts, kind))
    out = evaluate("abricot-abs", data_dir=write_abricot_data(tmp_path / "data"), out=tmp_path / "run",
                   system="embedding-ridge", embedder="st:fake", no_cache=True).run_dir
    recorded = json.loads((out / "results.json").read_text())["generalisation"]
    block = travel_block(load_run(out).results)
    assert [name for name, _ in block.rows] == [
        "leave-one-lemma-out", "between-lemma (lemma means)", "within-lemma (deviations)",
        "leave-one-domain-out opensub→wikihow", "leave-one-domain-out wikihow→opensub", "label vs gold label (official)"]
    assert block.rows[0][1] == recorded["measures"]["lolo_r"] and block.n == 10
    html = write_run_report(out).read_text(encoding="utf-8")
    section = html[html.index('<section id="travel">'):html.index('<section id="scatter">')]
    lolo = recorded["measures"]["lolo_r"]
    assert f"<td>leave-one-lemma-out</td>" in section and f"{lolo['value']:.3f}" in section
    assert f"[{lolo['ci_low']:.3f}, {lolo['ci_high']:.3f}]" in section
    for est in recorded["measures"].values():  # an undefined measure shows its reason instead of a number
        if est["value"] is None:
            assert est["reason"] in section
    # a run without the block (the published LM protocol) has no travel section
    assert run_context(load_run(abricot_runs["A"]))["section"]["travel"] is None
    assert 'id="travel"' not in write_run_report(abricot_runs["A"], out=tmp_path / "a.html").read_text()
