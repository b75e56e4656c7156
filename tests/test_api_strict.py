"""The Python API is strict: every keyword of `senso.evaluate` is checked for its type before anything runs (a
str is never a number or a bool), an unknown keyword is named with the closest valid one, a class is not an
instance, and a user system's answers off the task's scale (or distributions that do not sum to 1) are errors
unless the system asks, in a recorded attribute, to clip or normalise. One test per mistake a new user made."""

from __future__ import annotations

import pytest

import senso
from senso.core.errors import SensoError


class Constant:
    """A Likert system answering `value` for every item."""

    def __init__(self, value):
        self.value = value

    def predict(self, items, task):
        return [self.value for _ in items]


def loop_never_started(monkeypatch):
    """Fails the test if the evaluation loop starts: a keyword's check must come before anything runs."""
    import senso.core.evaluation as evaluation

    def refuse(*args, **kwargs):
        raise AssertionError("the loop started before the keywords were checked")

    monkeypatch.setattr(evaluation, "evaluate", refuse)


@pytest.mark.parametrize("keyword, value, expected", [
    ("limit", "24", "limit= expects a whole number (int) or None, got str '24'"),
    ("limit", 24.5, "limit= expects a whole number (int) or None, got float 24.5"),
    ("split", 1, "split= expects a str or None, got int 1"),
    ("no_cache", "false", "no_cache= expects True or False, got str 'false'"),
    ("batch_size", True, "batch_size= expects a whole number (int), got bool True"),
    ("data_dir", 3, "data_dir= expects a path (str or pathlib.Path) or None, got int 3"),
    ("progress", "yes", "progress= expects True or False, got str 'yes'"),
])
def test_a_keyword_of_the_wrong_type_is_named_with_its_type(keyword, value, expected, data_dir, monkeypatch):
    loop_never_started(monkeypatch)
    with pytest.raises(SensoError) as error:
        senso.evaluate("abricot-abs", **{"data_dir": data_dir, keyword: value})
    assert str(error.value) == expected


def test_a_system_option_given_as_text_is_refused(data_dir, monkeypatch):
    loop_never_started(monkeypatch)
    with pytest.raises(SensoError, match=r"^hedge= expects True or False, got str 'off'$"):
        senso.evaluate("admire-a", system="sense-pipeline", data_dir=data_dir, hedge="off")
    with pytest.raises(SensoError, match=r"^features= expects .*got int 3$"):
        senso.evaluate("abricot-abs", system="embedding-ridge", data_dir=data_dir, features=3)


def test_a_typo_names_the_keyword_suggests_the_closest_and_lists_the_valid_ones(data_dir, monkeypatch):
    loop_never_started(monkeypatch)
    with pytest.raises(SensoError) as error:
        senso.evaluate("abricot-abs", data_dir=data_dir, limt=24)
    message = str(error.value)
    assert message.startswith("unknown keyword limt= (did you mean limit=?) for abricot-abs")
    assert all(k in message for k in ("limit", "batch_size", "protocol", "no_cache"))
    assert "split" not in message  # an AdMIRe option: not valid for abricot-abs
    with pytest.raises(SensoError, match=r"unknown keyword hegde= \(did you mean hedge=\?\) for admire-a"):
        senso.evaluate("admire-a", system="sense-pipeline", data_dir=data_dir, hegde=False)


def test_a_keyword_given_to_a_users_own_system_is_unknown(data_dir, monkeypatch):
    loop_never_started(monkeypatch)
    with pytest.raises(SensoError, match=r"unknown keyword lmit= \(did you mean limit=\?\).*Constant takes none"):
        senso.evaluate("abricot-abs", system=Constant(0.5), data_dir=data_dir, lmit=24)


def test_a_class_passed_as_system_is_named_as_a_class(data_dir, monkeypatch):
    loop_never_started(monkeypatch)
    with pytest.raises(SensoError, match=r"^system=Constant is a class; pass an instance of it: system=Constant\(\)$"):
        senso.evaluate("abricot-abs", system=Constant, data_dir=data_dir)


@pytest.mark.parametrize("value", [3, 9, -0.5])
def test_scores_off_the_gold_scale_are_an_error_naming_the_item(value, data_dir):
    with pytest.raises(SensoError) as error:
        senso.evaluate("abricot-abs", system=Constant(value), data_dir=data_dir, limit=4)
    message = str(error.value)
    assert message.startswith("item ") and f"the score {value:g} is outside abricot-abs's gold scale 0-1" in message
    assert "clip = True" in message


def test_clipping_is_an_explicit_recorded_choice(data_dir):
    class Clipped(Constant):
        clip = True

    result = senso.evaluate("abricot-abs", system=Clipped(9), data_dir=data_dir, limit=4)
    assert result.results["model"]["clip"] is True
    assert all(s.prediction == 5 for s in result.samples)


def test_a_distribution_that_is_not_one_is_an_error_unless_normalised(data_dir):
    with pytest.raises(SensoError, match=r"^item .*the distribution \[0.5, 0.5, 0.5, 0, 0\] sums to 1.5, not 1"):
        senso.evaluate("abricot-abs", system=Constant([0.5, 0.5, 0.5, 0, 0]), data_dir=data_dir, limit=4)

    class Normalised(Constant):
        normalise = True

    result = senso.evaluate("abricot-abs", system=Normalised([0.5, 0.5, 0.5, 0, 0]), data_dir=data_dir, limit=4)
    assert result.results["model"]["normalise"] is True
    assert result.samples[0].expected == pytest.approx(2.0)
    with pytest.raises(SensoError, match=r"Bad.normalise must be True or False, got 'yes'"):
        senso.evaluate("abricot-abs", system=type("Bad", (Normalised,), {"normalise": "yes"})([0.2] * 5),
                       data_dir=data_dir, limit=4)


def test_describe_must_return_a_dict_and_says_so_before_the_run(data_dir, monkeypatch):
    class Described(Constant):
        def describe(self):
            return "a constant"

    loop_never_started(monkeypatch)
    with pytest.raises(SensoError, match=r"Described.describe\(\) returned str, not a dict: describe\(\) returns a dict"):
        senso.evaluate("abricot-abs", system=Described(0.5), data_dir=data_dir, limit=4)


def test_several_tasks_in_one_call_give_one_result_per_task_in_order(data_dir, tmp_path):
    class Ranker:
        def rank(self, items):
            return [item.image_names for item in items]

    class Both(Constant, Ranker):
        pass

    results = senso.evaluate(["abricot-inc", "abricot-abs"], system=Both(0.5), data_dir=data_dir, limit=3,
                             out=tmp_path / "runs")
    assert [r.task for r in results] == ["abricot-inc", "abricot-abs"] and all(r.n == 3 for r in results)
    assert [r.run_dir.name for r in results] == ["abricot-inc", "abricot-abs"]
    with pytest.raises(SensoError, match="a task is named twice"):
        senso.evaluate(["abricot-abs", "abricot-abs"], data_dir=data_dir)
    with pytest.raises(SensoError, match="split is an AdMIRe or word-in-context option; abricot-abs does not use it"):
        senso.evaluate(["admire-a", "abricot-abs"], system=Both(0.5), data_dir=data_dir, split="dev")


def test_the_same_weights_hit_the_same_cache_from_a_folder_or_in_memory(tiny_model, data_dir, tmp_path, monkeypatch):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    from_folder = senso.evaluate("abricot-abs", model=f"hf:{tiny_model}", data_dir=data_dir, limit=6)
    assert from_folder.results["cache"]["misses"] > 0
    in_memory = senso.evaluate("abricot-abs", data_dir=data_dir, limit=6, model=(
        AutoModelForCausalLM.from_pretrained(tiny_model), AutoTokenizer.from_pretrained(tiny_model)))
    assert in_memory.results["cache"]["misses"] == 0 and in_memory.results["cache"]["hits"] > 0
    fingerprints = [r.results["model"]["model"]["fingerprint"] for r in (from_folder, in_memory)]
    assert fingerprints[0] == fingerprints[1] and fingerprints[0].startswith("weights:")
    again = senso.evaluate("abricot-abs", model=f"hf:{tiny_model}", data_dir=data_dir, limit=6)
    assert again.results["cache"]["misses"] == 0  # the weights' hash remembered: the folder is not hashed twice


def no_network(monkeypatch):
    """Any connection attempt, or transformers asked to load, fails the test: offline is simulated."""
    import socket

    from transformers import AutoModelForCausalLM, AutoTokenizer

    def refuse(*args, **kwargs):
        raise AssertionError("tried the network")

    monkeypatch.setattr(socket, "create_connection", refuse)
    for owner in (AutoModelForCausalLM, AutoTokenizer):
        monkeypatch.setattr(owner, "from_pretrained", refuse)


def test_an_offline_hub_id_fails_at_once_saying_how_to_give_a_local_path(data_dir, tmp_path, monkeypatch):
    no_network(monkeypatch)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import senso.backends.hub_access as hub_access

    monkeypatch.setattr(hub_access, "cached_locally", lambda name: False)
    with pytest.raises(SensoError) as error:
        senso.evaluate("abricot-abs", model="google/gemma-3-270m", data_dir=data_dir, limit=2, no_cache=True)
    message = str(error.value)
    assert "model 'google/gemma-3-270m' is neither a local folder nor in the Hugging Face cache" in message
    assert "HF_HUB_OFFLINE is set" in message and "model='hf:/path/to/checkpoint'" in message


def test_an_unreachable_hub_is_found_by_a_short_probe(monkeypatch):
    import senso.backends.hub_access as hub_access

    from huggingface_hub import constants

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)  # as huggingface_hub read it at import: not offline either
    monkeypatch.setattr(hub_access, "cached_locally", lambda name: False)
    probes = []

    def unreachable(address, timeout):
        probes.append((address, timeout))
        raise OSError("no route to host")

    monkeypatch.setenv("HF_ENDPOINT", "https://hub.example:8443")
    monkeypatch.setattr(hub_access.socket, "create_connection", unreachable)
    with pytest.raises(SensoError, match=r"the hub \(hub.example\) did not answer within 3 s: give a local path"):
        hub_access.check_hub_model("google/gemma-3-270m")
    assert probes == [(("hub.example", 8443), hub_access.PROBE_TIMEOUT_S)]


def test_a_missing_folder_is_not_taken_for_a_hub_id(monkeypatch):
    import senso.backends.hub_access as hub_access

    no_network(monkeypatch)
    assert hub_access.is_hub_id("google/gemma-3-270m") and hub_access.is_hub_id("gpt2")
    assert not any(hub_access.is_hub_id(p) for p in ("/tmp/x/model", "./model", "~/model", "a/b/c"))
    hub_access.check_hub_model("/tmp/nothing-here/model")  # no probe: the loader says the folder is missing


def test_an_unknown_task_suggests_the_closest_and_models_must_be_a_pool(data_dir, monkeypatch):
    loop_never_started(monkeypatch)
    with pytest.raises(SensoError, match=r"^unknown task 'abricot-ab' \(did you mean abricot-abs\?\); choose from"):
        senso.evaluate("abricot-ab", data_dir=data_dir)
    with pytest.raises(SensoError, match=r"^models= takes a senso.ModelPool .*got str"):
        senso.evaluate("abricot-abs", data_dir=data_dir, models="pool")


def test_a_numpy_distribution_is_a_distribution(data_dir):
    import numpy as np

    result = senso.evaluate("abricot-abs", system=Constant(np.full(5, 0.2, dtype=np.float32)), data_dir=data_dir,
                            limit=3)
    assert [s.expected for s in result.samples] == pytest.approx([3.0] * 3)


# ---------------------------------------------------------------------------- a notebook's numpy values

def test_numpy_whole_numbers_are_whole_numbers_and_a_bool_is_still_none(data_dir, monkeypatch):
    import numpy as np

    result = senso.evaluate("admire-a", system="random", data_dir=data_dir, limit=np.int64(5), seed=np.int64(1))
    assert result.n == 5 and result.config["options"]["limit"] == 5 and type(result.config["options"]["seed"]) is int
    assert result.results["config"]["options"]["seed"] == 1
    loop_never_started(monkeypatch)
    for value in (True, np.True_):
        with pytest.raises(SensoError, match=r"^limit= expects a whole number \(int\) or None, got bool True$"):
            senso.evaluate("admire-a", system="random", data_dir=data_dir, limit=value)
    with pytest.raises(SensoError, match=r"^limit= expects a whole number \(int\) or None, got float 5.5$"):
        senso.evaluate("admire-a", system="random", data_dir=data_dir, limit=np.float64(5.5))


def test_numpy_reals_and_arrays_are_taken_as_numbers_and_lists(data_dir):
    import numpy as np

    from senso.core.options import check_python_value, python_value

    check_python_value("n_resamples", np.int32(100), (int,))
    check_python_value("threshold", np.float32(0.5), (float,))
    assert python_value(np.array(["sentence", "target"])) == ["sentence", "target"]
    with pytest.raises(SensoError, match=r"^unknown feature\(s\) nope; choose from sentence"):  # read as a list
        senso.evaluate("abricot-abs", system="embedding-ridge", data_dir=data_dir,
                       features=np.array(["sentence", "nope"]))


def test_a_ranker_may_answer_numpy_arrays_of_image_names(data_dir):
    import numpy as np

    class NumpyRanker:
        fitted_compounds = np.array([], dtype=str)

        def rank(self, items):
            return [np.array(item.image_names)[::-1] for item in items]

    result = senso.evaluate("admire-a", system=NumpyRanker(), data_dir=data_dir, limit=3)
    assert result.n == 3 and result.metrics["top1"].value is not None
    assert [s.predicted_order for s in result.samples] == [s.images[::-1] for s in result.samples]


def test_an_estimate_is_a_float_or_says_why_it_has_none(data_dir):
    from senso.core.stats import Estimate

    result = senso.evaluate("admire-a", system="random", data_dir=data_dir, limit=5)
    assert float(result.metrics["top1"]) == result.metrics["top1"].value
    assert float(Estimate(0.25, 0.1, 0.4)) == 0.25
    with pytest.raises(SensoError, match=r"^the estimate has no value: predictions are constant"):
        float(Estimate(None, reason="predictions are constant (every item has value 1), so the correlation is undefined"))


@pytest.mark.parametrize("out", [False, True])
def test_describe_is_json_or_an_error_naming_the_key(out, data_dir, tmp_path, monkeypatch):
    import numpy as np

    class Ranker:
        def __init__(self, described):
            self.described = described

        def rank(self, items):
            return [item.image_names for item in items]

        def describe(self):
            return self.described

    where = {"out": tmp_path / "run"} if out else {}
    result = senso.evaluate("admire-a", system=Ranker({"weights": np.zeros(3), "k": np.int64(2)}), data_dir=data_dir,
                            limit=2, **where)
    assert result.results["model"]["weights"] == [0.0, 0.0, 0.0] and result.results["model"]["k"] == 2
    loop_never_started(monkeypatch)
    with pytest.raises(SensoError, match=r"^Ranker.describe\(\)\['when'\] is a module, which a run's record \(JSON\) "
                                         "cannot hold: give text, numbers, lists or dicts"):
        senso.evaluate("admire-a", system=Ranker({"weights": [1.0], "when": np}), data_dir=data_dir, limit=2, **where)


def test_python_calls_speak_python(data_dir):
    for call in (lambda: senso.export([], to="somewhere"), lambda: senso.model_index([]), lambda: senso.report([])):
        with pytest.raises(SensoError, match=r"^give at least one result \(of senso.evaluate, or a run folder\)$"):
            call()
    names = [t.name for t in senso.tasks()]
    assert "admire-a" in names and not any("/" in name or name.endswith(".toml") for name in names)
