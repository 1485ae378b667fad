# Entry points after cloning:  `make demo` (the main job), `make test` (the test suite),
# `make quicktest` (its quick part) and `make docs` (the documentation site, into site/).
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo demo-needs test quicktest docs install release clean hub

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found; install Python 3.11 or run 'make PYTHON=python3 ...'"; exit 1; }
	@echo "Creating the virtual environment $(VENV)/ (once; about a minute, most of it pip) ..."
	$(PYTHON) -m venv $(VENV)
	@echo "Upgrading pip in $(VENV)/ ..."
	$(BIN)/python -m pip install --quiet --upgrade pip
	@echo "Installing the course package and its dependencies (nbgrader, Jupyter, numpy, Playwright, MkDocs ...) into $(VENV)/ ..."
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@echo "Putting the checkout on the import path of $(VENV)/ (the repository's course folder and its tests) ..."
	$(BIN)/python -c "import pathlib, sysconfig; pathlib.Path(sysconfig.get_path('purelib'), 'scaled-attention-checkout.pth').write_text('$(CURDIR)\n')"
	@echo "Installed: $(VENV)/bin/grader"
	touch $(STAMP)

install: $(STAMP)

# demo-needs stops a demo that cannot grade here (neither root nor user namespaces) before anything is installed or run.
demo-needs:
	@if command -v $(PYTHON) >/dev/null; then $(PYTHON) -m grader.sandbox.privileges; fi

demo: demo-needs $(STAMP)
	$(BIN)/grader demo

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadgroup

# A complete local course hub on 127.0.0.1:8000 (as root; Ctrl-C tears it down): docs/operations/hub.md.
hub: $(STAMP)
	$(BIN)/grader hub up

# The tests not marked slow: no nbgrader runs, kernels, student accounts, PostgreSQL or browser.
quicktest: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadgroup -m "not slow"

# The documentation site, built into site/; a warning (a broken link, a missing page) is an error.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

release: $(STAMP)
	$(BIN)/grader release

clean:
	rm -rf $(VENV) gradebook.db submitted feedback grades.csv demo-course site
