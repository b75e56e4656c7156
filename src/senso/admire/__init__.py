"""The AdMIRe family (SemEval-2025 Task 1): idiom-sense image ranking and sequence completion."""
