"""admire-b: AdMIRe 1 Subtask B (complete an image sequence), its plan."""
