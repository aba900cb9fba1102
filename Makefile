# make lab   — set up .venv from nothing and open the labs in JupyterLab (prints the URL)
# make test  — set up .venv from nothing and run every test: helpers, labs in sync, grading, and the solution
#              notebooks under nbval (QUICK, CPU: conftest.NOTEBOOK_ENV), in one pytest run so its workers share the load
# make labs  — regenerate labs/ from solutions/ after editing a solution notebook
# make doctor — can this machine run the labs?
# make test-browser — run every solution notebook in JupyterLab in headless Chromium, and the grading desk's browser
#              test (pytest -m browser); screenshots in build/screenshots
#              (compiles come from the Inductor caches the last `make test` kept in build/warm-inductor)

# The first Python 3.10-3.13 with venv, preferring the system's: the grader runs each submission under its own
# user id as root, and that user must be able to run the interpreter (pyenv's under /root is not reachable).
PYTHON ?= $(shell for p in /usr/bin/python3 python3; do $$p -c 'import sys, venv, ensurepip; sys.exit(not (3, 10) <= sys.version_info[:2] <= (3, 13))' 2>/dev/null && echo $$p && break; done)
VENV := .venv
BIN := $(VENV)/bin
TORCH_VERSION ?= 2.13.0
STAMP := $(VENV)/.installed
# pytest-xdist: TEST_JOBS processes, each test module, class or notebook whole in one of them, taken in the order
# conftest.LONGEST_FIRST gives (xdist would otherwise sort them by their number of tests); TEST_JOBS=1 runs serially.
# Three on two cores: several tests mostly wait (a grader's time limits, a hung job), and a third worker keeps the
# cores busy meanwhile (measured on the 2-core machine: 1,494 s with 3, 1,551 s with 2, the cores 93 % busy; on
# 2026-11-29 four took 1,206 s against 1,228 s with three, and 15 GB of memory at the peak: not worth it)
TEST_JOBS ?= 3
PARALLEL := $(if $(filter 1,$(TEST_JOBS)),,-n $(TEST_JOBS) --dist loadscope --no-loadscope-reorder)
export JUPYTER_PATH := $(abspath $(VENV))/share/jupyter
export MPLBACKEND := Agg

.PHONY: lab test test-browser labs doctor test-fast clean

$(STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "No Python 3.10-3.13 with venv found: install one (e.g. apt-get install python3-venv) or run make PYTHON=/path/to/python3"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet "torch==$(TORCH_VERSION)"
	$(BIN)/python -m pip install --quiet -e ".[lab,test]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (workbook)" >/dev/null
	@command -v bwrap >/dev/null || { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get install -y -qq --no-install-recommends bubblewrap >/dev/null 2>&1 || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bubblewrap >/dev/null; } || \
		echo "note: bubblewrap could not be installed: the grader will run jobs without its jail (workbook doctor says more)"; \
	else echo "note: bubblewrap (bwrap) is not installed; the grader jails every job with it: sudo apt-get install bubblewrap"; fi; }
	touch $(STAMP)

lab: $(STAMP)
	$(BIN)/workbook doctor || true
	$(BIN)/jupyter lab --no-browser --ip=127.0.0.1 --ServerApp.root_dir=labs $(if $(filter 0,$(shell id -u)),--allow-root,)

test: $(STAMP)
	$(BIN)/workbook build --check
	$(BIN)/python -m pytest -q -p no:cacheprovider $(PARALLEL) --durations=20 -m "not browser" \
		--nbval-lax --nbval-cell-timeout=900 tests solutions/

# Debian's chromium (installed here when we are root), Playwright from the `browser` extra; no browser download.
CHROMIUM ?= /usr/bin/chromium
test-browser: $(STAMP)
	@test -x $(CHROMIUM) || { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; \
	else echo "No Chromium at $(CHROMIUM): install it (Debian/Ubuntu: sudo apt-get install chromium) or run make test-browser CHROMIUM=/path/to/chromium"; exit 1; fi; }
	@$(BIN)/python -c "import playwright" 2>/dev/null || $(BIN)/python -m pip install --quiet -e ".[browser]"
	CHROMIUM=$(CHROMIUM) $(BIN)/python tools/browser_check.py --out build/screenshots
	CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest -q -p no:cacheprovider -m browser tests   # the grading desk

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider -m "not slow and not browser" tests

labs: $(STAMP)
	$(BIN)/workbook build

doctor: $(STAMP)
	$(BIN)/workbook doctor

clean:
	rm -rf $(VENV) experiments labs/experiments solutions/experiments build/screenshots build/warm-inductor
