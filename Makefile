# make run  : set up .venv (user install) and run the main job on the built-in defaults
# make test : set up .venv with the test extras and run the whole test suite
VENV ?= .venv
PY := $(VENV)/bin/python
SENSO_DATA_DIR ?= ../shared/data
export SENSO_DATA_DIR

.PHONY: setup setup-test run test

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

# torch==2.13.0 is installed only when the venv has no torch (a CPU wheel here; a user's own torch is kept).
setup: $(PY)
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e .

setup-test: $(PY)
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install -q torch==2.13.0
	@$(PY) -c "import llama_cpp" 2>/dev/null || echo "Installing the test extras: llama-cpp-python comes from PyPI as source and compiles llama.cpp (about 9 minutes on 2 cores, silent); later installs reuse pip's built wheel."
	$(PY) -m pip install -q -e ".[test]"

run: setup
	$(VENV)/bin/senso run abricot-abs abricot-inc --data-dir $(SENSO_DATA_DIR)

test: setup-test
	$(PY) -m pytest -q
