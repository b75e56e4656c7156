"""Results where researchers keep them: run folders as a Hugging Face dataset (Parquet, a dataset card;
`dataset`), uploaded to the Hub (`hub`), and the `model-index:` block of a model card (`model_index`).
Built from run folders alone (`senso.reporting.run_folder`), as the report pages are."""
