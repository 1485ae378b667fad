# Two entry points after cloning:  `make demo` (the main job)  and  `make test` (the test suite).
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test install release clean hub

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found; install Python 3.11 or run 'make PYTHON=python3 ...'"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/grader demo

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadgroup

# A complete local course hub on 127.0.0.1:8000 (as root; Ctrl-C tears it down): README "On a JupyterHub".
hub: $(STAMP)
	$(BIN)/grader hub up

release: $(STAMP)
	$(BIN)/grader release

clean:
	rm -rf $(VENV) gradebook.db submitted feedback grades.csv
