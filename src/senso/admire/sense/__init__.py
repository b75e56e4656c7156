"""admire-sense: the sense classifier alone, its plan."""
