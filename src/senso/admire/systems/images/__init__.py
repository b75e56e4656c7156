"""AdMIRe systems that look at the pictures (the text+images track): `clip-rank`, `fusion`, `vlm-judge`, Subtask B
with pictures, and picture evidence for the pipeline's rankers."""
