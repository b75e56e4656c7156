"""What answers a word-in-context task: an LM likelihood protocol, the encoder's contextual cosine, a fitted pair model."""
