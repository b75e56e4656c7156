"""The transformers scoring engine, on tiny randomly initialised causal LMs (tests/tiny_lm.py).

Every speed-up (one pass for all five choices, shared-prefix key/value reuse, batching, the response
cache) is checked against a plain transcription of lm-evaluation-harness's loglikelihood.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from senso.backends.hf import BUCKET_STEP, PASS_ROWS, PASS_TOKENS, HFCausalLM, bucket_length, pass_rows
from senso.core.errors import SensoError
from senso.backends.cached import with_cache
from senso.core.cache import ResponseCache
from senso.likert.task import LikertPrompt
from tiny_lm import CHAT_TEMPLATE, save_tiny_lm


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Tiny matrices: on a busy 2-core machine several threads make each forward pass ~50x slower."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module", params=["gemma3", "llama"])
def tiny_model_dir(request, tmp_path_factory) -> Path:
    return save_tiny_lm(tmp_path_factory.mktemp(f"tiny-{request.param}"), request.param)


@dataclass(frozen=True)
class FreePrompt:
    """A prompt with arbitrary continuations (e.g. of different token lengths)."""

    context: str
    continuations: tuple[str, ...]
    shared_prefix: str = ""


EXEMPLARS = "".join(f"Assegna un valore da 1 a 5 alla parola {w}: Il {w} è un animale. {d}\n\n"
                    for w, d in [("cane", "2"), ("gatto", "4"), ("topo", "1")])
OTHER_EXEMPLARS = "Rispondi con il numero 3\n\nRispondi con il numero 5\n\n"


def likert_prompts() -> list[LikertPrompt]:
    words = ["cane", "gatto", "cavallo", "mucca", "pesce", "topo", "leone", "orso", "lupo", "capra"]
    prompts = []
    for i, word in enumerate(words):
        body = f"Assegna un valore di astrazione alla parola {word} nella frase: il {word} {'è ' * (i % 4)}qui.\n"
        prefix = EXEMPLARS if i % 3 else (OTHER_EXEMPLARS if i % 2 else "")
        prompts.append(LikertPrompt(f"item{i}", prefix + body, shared_prefix=prefix))
    return prompts


def free_prompts() -> list[FreePrompt]:
    return [
        FreePrompt(EXEMPLARS + "Quanti? ", (" 1", " 22", " uno due", " 345", "\n\n5"), shared_prefix=EXEMPLARS),
        FreePrompt("Il cane\n", (" è", " è un animale", " 5")),
        # the shared prefix ends with a space that the context's tokens join to the next word
        FreePrompt(EXEMPLARS + "Assegna un valore\n", (" 1", " 2"), shared_prefix=EXEMPLARS + "Assegna "),
    ]


def naive_lmeval_loglikelihoods(model_dir: Path, prompts) -> list[list[float]]:
    """lm-eval's HF loglikelihood written out plainly: each request's full input through the model, no batching.

    Requests with identical inputs share one forward pass (as lm-eval's own logits cache does).
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    add_special = "gemma" in model.config.model_type
    out = []
    logits_of: dict[tuple[int, ...], torch.Tensor] = {}
    for prompt in prompts:
        scores = []
        for continuation in prompt.continuations:
            context = prompt.context
            n_spaces = len(context) - len(context.rstrip())
            if n_spaces:
                continuation = context[-n_spaces:] + continuation
                context = context[:-n_spaces]
            whole = tok.encode(context + continuation, add_special_tokens=add_special)
            context_enc = tok.encode(context, add_special_tokens=add_special)
            cont = whole[len(context_enc):]
            inp = (context_enc + cont)[:-1]
            if tuple(inp) not in logits_of:
                with torch.no_grad():
                    logits_of[tuple(inp)] = model(torch.tensor([inp])).logits[0]
            logits = logits_of[tuple(inp)]
            logprobs = torch.log_softmax(logits[len(inp) - len(cont):], dim=-1)
            scores.append(float(logprobs[torch.arange(len(cont)), torch.tensor(cont)].sum()))
        out.append(scores)
    return out


def assert_close(a: list[list[float]], b: list[list[float]], tol: float = 1e-4) -> None:
    assert len(a) == len(b)
    for row_a, row_b in zip(a, b):
        assert len(row_a) == len(row_b)
        for x, y in zip(row_a, row_b):
            assert abs(x - y) < tol, (row_a, row_b)


def test_matches_lmeval_semantics_on_all_paths(tiny_model_dir):
    prompts = likert_prompts() + free_prompts()
    expected = naive_lmeval_loglikelihoods(tiny_model_dir, prompts)
    lm = HFCausalLM(tiny_model_dir)
    got = lm.loglikelihood_choices(prompts, batch_size=4)
    assert_close(got, expected)
    # log-probabilities of random models are far from equal: the comparison above is not trivial
    assert max(abs(x - y) for row in expected for x, y in zip(row, row[1:])) > 0.1


def test_fast_path_equals_full_path_with_fewer_passes(tiny_model_dir):
    prompts = likert_prompts()
    fast = HFCausalLM(tiny_model_dir, reuse_prefix=False)
    full = HFCausalLM(tiny_model_dir, reuse_prefix=False, merge_continuations=False)
    assert_close(fast.loglikelihood_choices(prompts, batch_size=1), full.loglikelihood_choices(prompts, batch_size=1))
    # rows without a shared prefix run PASS_ROWS at a time: merged, a tenth as many rows run
    assert len(prompts) / PASS_ROWS <= fast.forward_calls < full.forward_calls
    assert full.forward_calls >= 5 * len(prompts) / PASS_ROWS
    assert fast.tokens_in_prompts == full.tokens_in_prompts
    assert fast.tokens_computed * 5 == full.tokens_computed == full.tokens_in_prompts


def test_prefix_reuse_equals_no_reuse_and_computes_less(tiny_model_dir):
    prompts = likert_prompts() + free_prompts()
    reuse = HFCausalLM(tiny_model_dir)
    plain = HFCausalLM(tiny_model_dir, reuse_prefix=False)
    assert_close(reuse.loglikelihood_choices(prompts, batch_size=3), plain.loglikelihood_choices(prompts, batch_size=3))
    assert reuse.tokens_computed < plain.tokens_computed
    # one prompt's shared prefix is not a token prefix of its context: only the common tokens may be reused
    tricky = free_prompts()[2]
    prefix_ids = reuse.tokenizer(tricky.shared_prefix).input_ids
    assert reuse.tokenizer(tricky.context).input_ids[: len(prefix_ids)] != prefix_ids
    # the prefixes are longer than the tiny Gemma's sliding window, so reuse crosses it
    assert len(reuse.tokenizer(EXEMPLARS).input_ids) > 12


def test_prefixes_that_share_exemplars_run_the_shared_tokens_once(tiny_model_dir):
    """ABRICOT's exemplar sets differ in one exemplar or two: the common tokens are computed once."""
    shots = [f"Assegna un valore da 1 a 5 alla parola {w}: Il {w} è qui. {d}\n\n"
             for w, d in [("cane", "2"), ("gatto", "4"), ("topo", "1"), ("orso", "3")]]
    prefixes = [shots[0] + shots[1] + shots[2], shots[0] + shots[1] + shots[3], shots[0] + shots[3] + shots[2],
                shots[0] + shots[1], shots[1] + shots[2]]
    prompts = [LikertPrompt(f"item{i}{j}", prefix + f"Assegna un valore alla parola {w}: {w}.\n", shared_prefix=prefix)
               for i, prefix in enumerate(prefixes) for j, w in enumerate(["lupo", "capra"])]
    reuse = HFCausalLM(tiny_model_dir)
    reuse.prefix_block = 12  # prefixes run in blocks at fixed offsets; these exemplars are 36 tokens
    got = reuse.loglikelihood_choices(prompts, batch_size=2)
    assert_close(got, HFCausalLM(tiny_model_dir, reuse_prefix=False).loglikelihood_choices(prompts, batch_size=2))
    assert_close(got, reuse.loglikelihood_choices(prompts[::-1], batch_size=8)[::-1])
    encoded = [reuse.tokenizer(prefix).input_ids for prefix in prefixes]
    body_tokens = sum(len(reuse.tokenizer(p.context).input_ids) - len(encoded[k // 2]) for k, p in enumerate(prompts))
    reuse.reset_counters()
    reuse.loglikelihood_choices(prompts, batch_size=2)
    # each distinct token path through the prefixes once: the tokens of the shared first exemplar once, not 4 times
    assert reuse.tokens_computed - body_tokens < sum(len(ids) for ids in encoded) - 3 * len(reuse.tokenizer(shots[0]).input_ids)


def test_results_do_not_depend_on_batch_size(tiny_model_dir):
    prompts = likert_prompts() + free_prompts()
    lm = HFCausalLM(tiny_model_dir)
    assert_close(lm.loglikelihood_choices(prompts, batch_size=1), lm.loglikelihood_choices(prompts, batch_size=8))


def test_a_rows_scores_do_not_depend_on_which_rows_share_its_call(tiny_model_dir, tmp_path):
    """Cached, recomputed, resumed and other-batch-size runs give the same floats, to the last bit."""
    prompts = likert_prompts() + free_prompts()
    expected = HFCausalLM(tiny_model_dir).loglikelihood_choices(prompts, batch_size=8)
    assert HFCausalLM(tiny_model_dir).loglikelihood_choices(prompts, batch_size=3) == expected
    assert HFCausalLM(tiny_model_dir).loglikelihood_choices(prompts[::-1], batch_size=1)[::-1] == expected
    half = with_cache(HFCausalLM(tiny_model_dir), ResponseCache(tmp_path / "cache.sqlite"))
    assert half.loglikelihood_choices(prompts[1::2], batch_size=8) == expected[1::2]
    rest = with_cache(HFCausalLM(tiny_model_dir), ResponseCache(tmp_path / "cache.sqlite"))
    assert rest.loglikelihood_choices(prompts, batch_size=8) == expected
    assert 0 < rest.tokens_computed < half.tokens_computed + rest.tokens_computed


def prompt_of_length(lm: HFCausalLM, lead: str, n_tokens: int, digit: str = "1") -> FreePrompt:
    """A prompt of one model input (its continuations differ in the last token only) of `n_tokens` tokens:
    the tokenizer keeps digits apart, so each digit after `lead` adds one."""
    def prompt(n_digits: int) -> FreePrompt:
        return FreePrompt(f"{lead}\n" + digit * n_digits, (" 5", " 2", " 3"))

    def length(p: FreePrompt) -> int:
        return len(lm.tokenizer.encode(p.context + p.continuations[0], add_special_tokens=lm.add_bos_token)) - 1

    result = prompt(n_tokens - length(prompt(0)))
    assert length(result) == n_tokens
    return result


def test_a_row_scores_the_same_whichever_rows_share_its_pass(tiny_model_dir):
    lm = HFCausalLM(tiny_model_dir)
    width = bucket_length(3 * BUCKET_STEP, lm.max_length)
    target = prompt_of_length(lm, "Il cane", width - 5)
    mates_a = [prompt_of_length(lm, "Il gatto", width - k % 4, digit=str(k + 2)) for k in range(PASS_ROWS - 1)]
    mates_b = [prompt_of_length(lm, "Rispondi", width - 9 + k, digit="3") for k in range(2)]
    assert bucket_length(width - 9, lm.max_length) == width  # all in the target's bucket
    alone = lm.loglikelihood_choices([target])[0]
    lm.reset_counters()
    in_a = lm.loglikelihood_choices(mates_a[:3] + [target] + mates_a[3:], batch_size=1)
    assert lm.forward_calls == 1  # one full pass: each row's batch-mates were the others
    in_b = lm.loglikelihood_choices([*mates_b, target], batch_size=8)
    assert in_a[3] == in_b[-1] == alone
    assert in_a[0] != in_b[0]  # the mates differ, and so do their scores


def test_rows_either_side_of_a_bucket_edge(tiny_model_dir):
    """Rows padded to the next width and rows that fill theirs exactly score as when run one per call, and as lm-eval."""
    lm = HFCausalLM(tiny_model_dir)
    edge = bucket_length(2 * BUCKET_STEP, lm.max_length)
    prompts = [prompt_of_length(lm, "Il cane", edge + shift) for shift in (-1, 0, 1, 2)]
    widths = [bucket_length(edge + shift, lm.max_length) for shift in (-1, 0, 1, 2)]
    assert widths[0] == widths[1] == edge < widths[2] == widths[3]
    together = lm.loglikelihood_choices(prompts)
    assert [lm.loglikelihood_choices([p])[0] for p in prompts] == together
    assert lm.loglikelihood_choices(prompts[::-1], batch_size=1)[::-1] == together
    assert_close(together, naive_lmeval_loglikelihoods(tiny_model_dir, prompts))


def test_rows_alone_score_as_fixed_shape_passes_under_their_own_cache_keys(tiny_model_dir):
    prompts = likert_prompts() + free_prompts()
    passes = HFCausalLM(tiny_model_dir, reuse_prefix=False)
    alone = HFCausalLM(tiny_model_dir, reuse_prefix=False, batch_rows=False)
    assert_close(passes.loglikelihood_choices(prompts), alone.loglikelihood_choices(prompts))
    assert alone.tokens_computed == passes.tokens_computed and alone.tokens_padding == 0 < passes.tokens_padding
    assert alone.forward_calls > passes.forward_calls
    assert not set(passes.loglikelihood_keys(prompts)) & set(alone.loglikelihood_keys(prompts))


def test_bucket_widths_hold_the_row_and_grow_by_about_an_eighth():
    widths = [bucket_length(n, 4096) for n in range(1, 3000)]
    assert all(w >= n and w % BUCKET_STEP == 0 for n, w in enumerate(widths, start=1))
    rungs = sorted(set(widths))
    assert rungs[:3] == [BUCKET_STEP, 2 * BUCKET_STEP, 3 * BUCKET_STEP]
    assert all(b - a <= max(BUCKET_STEP, a / 8) for a, b in zip(rungs, rungs[1:]))
    assert bucket_length(5000, 2048) == 2048


def test_cache_hit_recomputes_nothing(tiny_model_dir, tmp_path):
    prompts = likert_prompts()
    cache = ResponseCache(tmp_path / "cache.sqlite")
    first = with_cache(HFCausalLM(tiny_model_dir), cache)
    expected = first.loglikelihood_choices(prompts)
    assert first.tokens_computed > 0
    second = with_cache(HFCausalLM(tiny_model_dir), ResponseCache(tmp_path / "cache.sqlite"))
    seen = []
    assert second.loglikelihood_choices(prompts, progress=seen.append) == expected
    assert (second.forward_calls, second.tokens_computed) == (0, 0)
    assert sum(seen) == len(prompts)


def test_a_run_killed_midway_resumes_without_recomputing_finished_batches(tiny_model_dir, tmp_path):
    prompts = likert_prompts()

    def die_after_first_batch(n: int) -> None:
        raise KeyboardInterrupt

    killed = with_cache(HFCausalLM(tiny_model_dir), ResponseCache(tmp_path / "cache.sqlite"))
    with pytest.raises(KeyboardInterrupt):
        killed.loglikelihood_choices(prompts, batch_size=2, progress=die_after_first_batch)
    resumed = with_cache(HFCausalLM(tiny_model_dir), ResponseCache(tmp_path / "cache.sqlite"))
    done = []
    got = resumed.loglikelihood_choices(prompts, batch_size=2, progress=done.append)
    assert done[0] == 2  # the first batch came from the cache
    fresh = HFCausalLM(tiny_model_dir)
    assert_close(got, fresh.loglikelihood_choices(prompts, batch_size=2))
    assert 0 < resumed.tokens_computed < fresh.tokens_computed


def test_cache_key_depends_on_dtype(tiny_model_dir, tmp_path):
    prompts = likert_prompts()[:2]
    with_cache(HFCausalLM(tiny_model_dir), ResponseCache(tmp_path / "c.sqlite")).loglikelihood_choices(prompts)
    bf16 = with_cache(HFCausalLM(tiny_model_dir, dtype="bfloat16"), ResponseCache(tmp_path / "c.sqlite"))
    bf16.loglikelihood_choices(prompts)
    assert bf16.tokens_computed > 0


def test_chat_template_wraps_the_context_and_is_recorded(tiny_model_dir):
    prompts = likert_prompts()[:4]
    chat = HFCausalLM(tiny_model_dir, chat_template=True)
    assert HFCausalLM(tiny_model_dir).describe()["chat_template"] is None
    assert chat.describe()["chat_template"] == CHAT_TEMPLATE
    got = chat.loglikelihood_choices(prompts)
    rendered = [chat.tokenizer.apply_chat_template([{"role": "user", "content": p.context}],
                                                   add_generation_prompt=True, tokenize=False) for p in prompts]
    assert all(r.startswith("<bos><user>") and r.endswith("</user>\n<model>") for r in rendered)
    # the template writes the BOS token itself: where lm-eval semantics add one (Gemma), it must not be doubled
    if chat.add_bos_token:
        rendered = [r[len("<bos>"):] for r in rendered]
    expected = naive_lmeval_loglikelihoods(tiny_model_dir, [FreePrompt(r, p.continuations) for r, p in zip(rendered, prompts)])
    assert_close(got, expected)


def test_no_chat_template_is_a_clear_error(tiny_model_dir, tmp_path):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    tok.chat_template = None
    folder = tmp_path / "no-template"
    HFCausalLM(tiny_model_dir).model.save_pretrained(folder)
    tok.save_pretrained(folder)
    with pytest.raises(SensoError, match="no chat template"):
        HFCausalLM(folder, chat_template=True)


def test_describe_and_fingerprint(tiny_model_dir):
    lm = HFCausalLM(tiny_model_dir)
    info = lm.describe()
    assert info["spec"] == f"hf:{tiny_model_dir.resolve()}"
    assert info["fingerprint"].startswith("weights:")  # one rule: the weights, as an in-memory model's
    assert (info["dtype"], info["device"]) == ("float32", "cpu")
    assert info["transformers"]
    assert lm._manual_head  # base model + head reproduces the model's logits (softcapping included)


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(SensoError, match="cannot load"):
        HFCausalLM(tmp_path / "nothing-here")


def test_dtype_is_recorded_as_loaded_and_unknown_dtypes_are_refused(tiny_model_dir):
    assert HFCausalLM(tiny_model_dir, dtype="auto").describe()["dtype"] == "float32"
    assert HFCausalLM(tiny_model_dir, dtype="bfloat16").describe()["dtype"] == "bfloat16"
    with pytest.raises(SensoError, match="unknown dtype"):
        HFCausalLM(tiny_model_dir, dtype="float8")


def test_a_prompt_without_continuations_is_refused(tiny_model_dir):
    with pytest.raises(SensoError, match="no continuations"):
        HFCausalLM(tiny_model_dir).loglikelihood_choices([FreePrompt("Il cane\n", ())])


@pytest.fixture(scope="module")
def long_model_dir(tiny_model_dir, tmp_path_factory) -> Path:
    """The tiny model of `tiny_model_dir`'s kind with room for rows past half a pass's token budget."""
    kind = "gemma3" if "gemma3" in tiny_model_dir.name else "llama"
    return save_tiny_lm(tmp_path_factory.mktemp(f"long-{kind}"), kind, max_positions=4 * PASS_TOKENS)


def test_a_long_rows_pass_holds_fewer_rows_and_a_lone_long_row_runs_unpadded(long_model_dir):
    lm = HFCausalLM(long_model_dir)
    short, medium, long = 40, PASS_TOKENS // 4 + 20, PASS_TOKENS // 2 + 100
    assert pass_rows(bucket_length(short, lm.max_length)) == PASS_ROWS
    assert 1 < pass_rows(bucket_length(medium, lm.max_length)) == 3 < PASS_ROWS
    assert pass_rows(bucket_length(long, lm.max_length)) == 1
    shorts = [prompt_of_length(lm, "Il cane", short, digit=str(k + 1)) for k in range(PASS_ROWS + 1)]
    mediums = [prompt_of_length(lm, "Il gatto", medium - k, digit=str(k + 1)) for k in range(4)]
    lm.loglikelihood_choices(shorts + mediums)
    assert lm.forward_calls == 2 + 2  # 8 + 1 short rows, 3 + 1 medium ones
    lm.reset_counters()
    lm.loglikelihood_choices([prompt_of_length(lm, "Il topo", long)])
    # one pass of the row's own length: no row of padding beside it, no padding after it
    assert (lm.forward_calls, lm.tokens_computed, lm.tokens_padding) == (1, long, 0)


def test_a_long_rows_floats_are_those_of_the_row_in_any_other_batch(long_model_dir):
    lm = HFCausalLM(long_model_dir)
    medium, long = PASS_TOKENS // 4 + 20, PASS_TOKENS // 2 + 100
    targets = [prompt_of_length(lm, "Il cane", medium), prompt_of_length(lm, "Il cane", long)]
    alone = [lm.loglikelihood_choices([target])[0] for target in targets]
    mates = [prompt_of_length(lm, "Il gatto", n - k, digit=str(k + 2)) for n in (medium, long) for k in range(3)]
    mates += [prompt_of_length(lm, "Rispondi", 30 + k) for k in range(5)]
    mixed = lm.loglikelihood_choices(mates[:2] + targets[:1] + mates[2:5] + targets[1:] + mates[5:], batch_size=2)
    assert [mixed[2], mixed[6]] == alone
    assert lm.loglikelihood_choices(targets[::-1] + mates[::-1], batch_size=1)[:2] == alone[::-1]
    assert_close(alone, naive_lmeval_loglikelihoods(long_model_dir, targets))


def test_a_row_past_the_row_block_runs_in_blocks_with_the_numbers_of_one_pass(long_model_dir):
    """Blocks longer and shorter than the tiny Gemma's sliding window (12), with and without a shared prefix."""
    plain = HFCausalLM(long_model_dir)
    n = PASS_TOKENS // 2 + 100  # a row alone (with a prefix, every row is)
    long = prompt_of_length(plain, "Il cane", n)
    after_prefix = FreePrompt(EXEMPLARS + long.context, long.continuations, shared_prefix=EXEMPLARS)
    prompts = [long, after_prefix, prompt_of_length(plain, "Il gatto", 20)]
    one_pass = plain.loglikelihood_choices(prompts)
    for block in (40, 7):
        blocks = HFCausalLM(long_model_dir)
        blocks.row_block = block
        got = blocks.loglikelihood_choices(prompts)
        assert_close(got, one_pass)
        assert blocks.forward_calls >= plain.forward_calls + 2 * (n // block - 1)
        assert blocks.loglikelihood_choices(prompts[::-1], batch_size=1)[::-1] == got


def test_an_input_longer_than_the_models_context_is_refused_naming_the_item(tiny_model_dir):
    lm = HFCausalLM(tiny_model_dir)
    fits = prompt_of_length(lm, "Il cane", lm.max_length)
    too_long = LikertPrompt("lungo-7", prompt_of_length(lm, "Il cane", lm.max_length + 1).context)
    assert len(lm.loglikelihood_choices([fits])[0]) == 3
    for call in (lm.loglikelihood_choices, lm.loglikelihood_keys):
        with pytest.raises(SensoError, match=rf"item .lungo-7. is {lm.max_length + 1} tokens long .* "
                                             rf"longer than the {lm.max_length} tokens"):
            call([LikertPrompt("corto", "Il cane\n"), too_long])


def test_a_stop_keeps_the_rows_finished_before_it(tiny_model_dir, tmp_path):
    """Ctrl-C (or SIGTERM in a run) inside a pass: the items finished since the last batch are stored all the same."""
    prompts = likert_prompts()
    lm = HFCausalLM(tiny_model_dir, reuse_prefix=False)
    expected = lm.loglikelihood_choices(prompts)
    passes = lm.forward_calls

    inner = HFCausalLM(tiny_model_dir, reuse_prefix=False)

    def stop_in_the_last_pass(module, args):
        nonlocal passes
        if module is inner.model.base_model:
            passes -= 1
            if passes == 0:
                raise KeyboardInterrupt

    killed = with_cache(inner, ResponseCache(tmp_path / "cache.sqlite"))
    handle = torch.nn.modules.module.register_module_forward_pre_hook(stop_in_the_last_pass)
    try:
        with pytest.raises(KeyboardInterrupt):
            killed.loglikelihood_choices(prompts, batch_size=100)
    finally:
        handle.remove()
    resumed = with_cache(HFCausalLM(tiny_model_dir, reuse_prefix=False), ResponseCache(tmp_path / "cache.sqlite"))
    assert resumed.loglikelihood_choices(prompts, batch_size=100) == expected
    assert resumed.forward_calls == 1
