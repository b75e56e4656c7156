"""The report tests' conftest, shared: its real run folders (ABRICOT and AdMIRe runs on tiny data) are the
export tests' fixtures. Every public name of tests/reporting/conftest.py is here under the same name, so a test
module's `from conftest import ...` finds it whichever of the two conftest modules Python holds."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPORT_TESTS = Path(__file__).resolve().parents[1] / "reporting"
sys.path.insert(0, str(REPORT_TESTS))  # report_fixtures, as tests/reporting/conftest.py imports it
_spec = importlib.util.spec_from_file_location("report_conftest", REPORT_TESTS / "conftest.py")
_report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_report)
globals().update({name: value for name, value in vars(_report).items() if not name.startswith("_")})
