# Two entry points a new user needs: `make verify` and `make test`. Only python3 is assumed.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# setuptools' build backend warns on every editable install ("BuildBackendWarning: Editable installation. Please be
# careful with folders in your working directory with the same name as your package ..."), a banner of a dozen
# lines that says nothing about this project: the one filter below silences that warning and no other
QUIET_EDITABLE := PYTHONWARNINGS="ignore:Editable installation"

.PHONY: verify test test-threads lint bench clean

$(BIN)/activate:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# an editable install compiles nothing: byte-compile the package now (as a regular install does), so that a first
# command does not compile ≈ 100 modules, and none does where PYTHONDONTWRITEBYTECODE keeps Python from caching them
$(VENV)/.installed: pyproject.toml | $(BIN)/activate
	$(QUIET_EDITABLE) $(BIN)/python -m pip install --quiet -e .
	$(BIN)/python -m compileall -q boundcheck theory > /dev/null
	touch $@

# the test environment also holds the example plugin paper (docs/extending.md): tests/usercode/test_plugin_paper.py runs it,
# and the adapters' extras (torch's CPU build, BoTorch, scikit-learn): tests/adapters/ runs them
$(VENV)/.installed-test: pyproject.toml examples/plugin_paper/pyproject.toml | $(BIN)/activate
	$(QUIET_EDITABLE) $(BIN)/python -m pip install --quiet -e ".[test,botorch,sklearn]" -e examples/plugin_paper
	$(BIN)/python -m compileall -q boundcheck theory > /dev/null
	touch $(VENV)/.installed $@

# boundcheck alone: no pytest (its plugin registers itself once pytest is installed: `make test` or pip install pytest)
verify: $(VENV)/.installed
	$(BIN)/boundcheck verify --theorem pe_gp_ucb

# -n auto: one pytest worker per core (pytest-xdist; 9 min instead of 15 on CI's 2 cores); every test is
# independent of the others' order and process (fixed seeds, its own tmp_path)
test: $(VENV)/.installed-test  # BOUNDCHECK_REQUIRE_PLUGIN: the plugin paper's tests fail, not skip, without it
	BOUNDCHECK_REQUIRE_PLUGIN=1 $(BIN)/python -m pytest -q -n auto

# the pinned results once more with BLAS on one thread by the environment: they must not depend on it (CI runs it)
PINNED_TESTS := tests/study/test_regression.py tests/world/test_scenario_files.py tests/world/test_blas_threads.py
test-threads: $(VENV)/.installed-test
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/python -m pytest -q $(PINNED_TESTS)

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .

bench: $(VENV)/.installed  # every performance benchmark; rewrites the measured part of docs/performance.md
	$(BIN)/python benchmarks/run_all.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) reports/*/results reports/*/*/results  # a verify of your code: reports/<theorem>/<CLASS>/
