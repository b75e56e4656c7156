"""AdMIRe systems that look at the images (the text+images track).

- `similarity.ClipRanker`: cosine between a text (the sentence, or the sentence with the idiom's
  meaning substituted) and each image, with a CLIP/SigLIP model (`clip-rank`);
- `similarity.FusionRanker`: per-item z-scored, weighted sum of member rankers' scores (captions + images);
- `vlm_judge.VlmJudgeRanker`: a vision-language model asked, image by image, whether the picture shows
  the meaning of the compound as used in the sentence (P(yes)), or asked to rank all five pictures,
  over several presentation orders aggregated by Borda count (`vlm-judge`);
- `sequence.ImageSequenceChooser`: Subtask B with the sequence and candidate images;
- `evidence.ImageEvidenceBuilder`: picture evidence for the pipeline's rankers (`--ranker image`,
  `--modality images`).
"""

from senso.admire.task import TEXT_AND_IMAGES as TRACK
