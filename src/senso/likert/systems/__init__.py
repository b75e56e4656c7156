"""What answers a Likert task: LM likelihood, generation, embedding ridge."""
