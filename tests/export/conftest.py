"""The report tests' real run folders (tests/report/conftest.py: ABRICOT and AdMIRe runs on tiny data),
shared with the export tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPORT_TESTS = Path(__file__).resolve().parents[1] / "report"
sys.path.insert(0, str(REPORT_TESTS))  # report_fixtures, as tests/report/conftest.py imports it
_spec = importlib.util.spec_from_file_location("report_conftest", REPORT_TESTS / "conftest.py")
_report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_report)

abricot_runs = _report.abricot_runs
admire_runs = _report.admire_runs
run_copy = _report.run_copy
