"""The Likert family: a word rated in context on a scale (ABRICOT and any task file)."""
