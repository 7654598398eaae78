# Set-up and everyday commands. `make run` and `make test` work on a fresh clone.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LINKED := $(VENV)/.linked
PACKAGES := games bots envs wrappers tables training
EXTRAS := dev,train,rllib,web,export,render,clients,bench,docs
# mypy reads the installed package, as a user's type checker does
TYPED := $(foreach p,$(PACKAGES),-p tablezoo.$(p))

# The native core (native/, C++17) is built by the package's own build (setup.py: pybind11 and
# setuptools from PyPI); make requires it, so a build error stops here instead of falling back.
export TABLEZOO_REQUIRE_NATIVE := 1
NATIVE := $(shell find native -type f) setup.py

.PHONY: run demo test browser compiler lint docs docs-serve bench sanitize clean

$(STAMP): pyproject.toml | compiler
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# torch first, and exactly this version: the CPU build (any other request fetches a CUDA build)
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[$(EXTRAS)]' --config-settings editable_mode=strict
	touch $(STAMP)

# The strict editable install links each file of the package into build/: static type checkers
# follow it, and no second copy of a module is ever importable from the repository root. A file
# added or removed (a folder's time changes) links anew.
$(LINKED): $(STAMP) $(NATIVE) $(shell find $(PACKAGES) -type d -not -name __pycache__)
	$(BIN)/pip install --quiet --no-deps -e . --config-settings editable_mode=strict
	touch $(LINKED)

# A C++17 compiler for the native core: installed when missing and apt-get can (as root),
# otherwise named.
compiler:
	@if command -v g++ >/dev/null || command -v c++ >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++ >/dev/null; \
	else echo "no C++ compiler: install one (apt-get install g++) to build the native core"; exit 1; fi

# The native core rebuilt with AddressSanitizer and UndefinedBehaviorSanitizer (the in-place
# extension removed first, or setuptools would keep it), the engine's contract, lockstep,
# bad-input, batched-env and native-bot tests run on it, then the core rebuilt as usual.
SANITIZER_RUNTIME = $$(g++ -print-file-name=libasan.so) $$(g++ -print-file-name=libubsan.so)
sanitize: $(LINKED)
	find games build -name '_native*.so' -delete
	TABLEZOO_SANITIZE=1 $(BIN)/pip install --quiet --no-deps --no-build-isolation -e . --config-settings editable_mode=strict
	nm -D games/_native*.so | grep -q __asan_init || { echo "the core was not built with the sanitizers"; exit 1; }
	LD_PRELOAD="$(SANITIZER_RUNTIME)" ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
		TABLEZOO_CORE=native $(BIN)/pytest -q -p no:cacheprovider tests/games/test_contract.py \
		tests/games/test_lockstep.py tests/games/test_native.py tests/envs/test_batched.py \
		tests/bots/test_native_*.py; status=$$?; \
	find games build -name '_native*.so' -delete; \
	$(BIN)/pip install --quiet --no-deps -e . --config-settings editable_mode=strict; exit $$status

# Train a short Heckmeck agent (a few minutes on 2 cores), evaluate it against the bots,
# print the table and save the learning curve (runs/<run>/curve.png).
run: $(LINKED)
	$(BIN)/tablezoo train heckmeck_v0 --players 2 --timesteps 120000 --opponents heuristic random \
		--reward score --eval-every 40000 --eval-games 200 --out runs --seed 0

# One seeded Heckmeck game between random players, printed as the ansi render shows it.
demo: $(LINKED)
	$(BIN)/python -m tablezoo.envs.demo heckmeck_v0 --players 3 --seed 7

# pytest (not `python -m pytest`) keeps the repository root off sys.path: tests import the
# installed package only (import mode importlib, set in pyproject.toml).
test: lint browser docs
	$(BIN)/pytest -q -n 2 tests

# Debian's chromium and chromedriver for the browser test (tests/tables/test_browser.py);
# installed when missing and apt-get can (as root). Without them those tests are skipped,
# unless TABLEZOO_REQUIRE_BROWSER=1 (as in CI) makes it fail.
browser:
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	else echo "no chromium: the browser test will be skipped (apt-get install chromium chromium-driver)"; fi

# ruff, the import contract of pyproject.toml (imports point one way), and mypy on the package.
lint: $(LINKED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy $(TYPED)

# The documentation site (mkdocs.yml, docs/) built into site/, offline and strict: a broken link, a
# reference to nothing or a docstring the generator cannot read fails the build.
docs: $(LINKED)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# The site served at http://127.0.0.1:8000, rebuilt as its pages and docstrings change.
docs-serve: $(LINKED)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000 --watch games --watch bots \
		--watch envs --watch wrappers --watch tables --watch training --watch benchmarks/results

# Both cores against OpenSpiel and connect_four, then the batched env against the Python env(),
# DummyVecEnv and SyncVectorEnv (each script measures its references in the same run).
bench: $(LINKED)
	$(BIN)/python benchmarks/throughput.py --table --out benchmarks/results/throughput.json
	$(BIN)/python benchmarks/batched.py --table --out benchmarks/results/batched.json

clean:
	rm -rf $(VENV) build site *.egg-info .pytest_cache .ruff_cache .hypothesis
