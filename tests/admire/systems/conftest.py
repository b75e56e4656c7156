"""The systems tests import the AdMIRe fixtures of tests/admire (admire_fixtures), which pytest puts on sys.path
only when a test module of tests/admire itself is collected: put it there for this folder run alone."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
