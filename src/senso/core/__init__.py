"""The ground floor: errors, paths, downloads, the response cache, fingerprints, run records and options, statistics."""
