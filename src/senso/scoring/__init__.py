"""Scoring of predictions against gold, per task family."""
