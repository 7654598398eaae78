# Set-up and everyday commands. `make run` and `make test` work on a fresh clone.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LINKED := $(VENV)/.linked
PACKAGES := games bots envs wrappers tables evaluation training release
EXTRAS := dev,train,rllib,web,cluster,export,render,clients,bench,docs,openspiel
# mypy reads the installed package, as a user's type checker does
TYPED := $(foreach p,$(PACKAGES),-p tablezoo.$(p)) -p tablezoo.commands -m tablezoo -m tablezoo.__main__

# The native core (native/, C++17) is built by the package's own build (setup.py: pybind11 and
# setuptools from PyPI); make requires it, so a build error stops here instead of falling back.
export TABLEZOO_REQUIRE_NATIVE := 1
NATIVE := $(shell find native -type f) setup.py

.PHONY: run demo check test browser servers compiler fuzzer fuzz-seeds lint docs docs-serve bench sanitize clean native-test native-test-sanitize fuzz fuzz-sanitize hostile-fuzz

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
$(LINKED): $(STAMP) $(NATIVE) $(shell find $(PACKAGES) cli -type d -not -name __pycache__)
	$(BIN)/pip install --quiet --no-deps -e . --config-settings editable_mode=strict
	touch $(LINKED)

# A C++17 compiler for the native core: installed when missing and apt-get can (as root),
# otherwise named.
compiler:
	@if command -v g++ >/dev/null || command -v c++ >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++ >/dev/null; \
	else echo "no C++ compiler: install one (apt-get install g++) to build the native core"; exit 1; fi

# The native core rebuilt with AddressSanitizer and UndefinedBehaviorSanitizer and installed, with
# the package around it, into a folder of its own (build/sanitize-site, built under build/sanitize:
# the project's environment and its extension are never touched, so whatever runs from it meanwhile
# goes on); the engine's contract, lockstep, bad-input, batched-env, parallel-env (the core's one-call
# step against the Python path), native-bot (every game's
# ports), native-search, Gumbel root (test_think.py) and search self-play tests run on that copy,
# first on PYTHONPATH. The hostile-object fuzz (tests/games/test_hostile_objects.py) runs
# HOSTILE_SECONDS a game there (4 in `make test`).
HOSTILE_SECONDS ?= 60
SANITIZER_RUNTIME = $$(g++ -print-file-name=libasan.so) $$(g++ -print-file-name=libubsan.so)
SANITIZE_SITE := build/sanitize-site
sanitize: $(LINKED)
	rm -rf $(SANITIZE_SITE)
	TABLEZOO_SANITIZE=1 $(BIN)/pip install --quiet --no-deps --no-build-isolation --target $(SANITIZE_SITE) .
	nm -D $(SANITIZE_SITE)/tablezoo/games/_native*.so | grep -q __asan_init || { echo "the core was not built with the sanitizers"; exit 1; }
	PYTHONPATH=$(SANITIZE_SITE) LD_PRELOAD="$(SANITIZER_RUNTIME)" ASAN_OPTIONS=detect_leaks=0 $(BIN)/python -c "import tablezoo.games._native as m; \
		assert '$(SANITIZE_SITE)' in m.__file__, m.__file__ + ' is imported, not the sanitized copy'"
	PYTHONPATH=$(SANITIZE_SITE) LD_PRELOAD="$(SANITIZER_RUNTIME)" ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
		TABLEZOO_HOSTILE_SECONDS=$(HOSTILE_SECONDS) \
		TABLEZOO_CORE=native $(BIN)/pytest -q -p no:cacheprovider tests/games/test_contract.py \
		tests/games/test_lockstep.py tests/games/test_native.py tests/games/test_hostile.py \
		tests/games/test_hostile_states.py tests/games/test_hostile_callers.py tests/games/test_hostile_objects.py \
		tests/envs/test_batched.py tests/envs/test_parallel.py \
		tests/bots/test_native_*.py tests/bots/test_think.py tests/training/test_search_selfplay.py
	$(MAKE) --no-print-directory native-test-sanitize && $(MAKE) --no-print-directory fuzz FUZZ_SECONDS=15

# The hostile-object fuzz alone, for as long as asked: HOSTILE_SECONDS each game, two games at a
# time, on the core built with the sanitizers and gcc's line counts (TABLEZOO_COVERAGE=1, into
# build/sanitize-coverage-site). Each game's log and trace (every example, written before it runs)
# go to build/hostile/; then the lines of the bindings and of the core the runs reached, file by
# file (build/hostile/coverage.json). A crash or a failed check stops it with the game's log.
HOSTILE_SITE := build/sanitize-coverage-site
HOSTILE_PAIRS := "heckmeck sechs_nimmt" "diamant court"
hostile-fuzz: $(LINKED)
	rm -rf $(HOSTILE_SITE) build/hostile && mkdir -p build/hostile
	find build/sanitize-coverage -name '*.gcda' -delete 2>/dev/null || true
	TABLEZOO_SANITIZE=1 TABLEZOO_COVERAGE=1 $(BIN)/pip install --quiet --no-deps --no-build-isolation --target $(HOSTILE_SITE) .
	nm -D $(HOSTILE_SITE)/tablezoo/games/_native*.so | grep -q __asan_init || { echo "the core was not built with the sanitizers"; exit 1; }
	for pair in $(HOSTILE_PAIRS); do \
		pids=""; for game in $$pair; do \
			PYTHONPATH=$(HOSTILE_SITE) LD_PRELOAD="$(SANITIZER_RUNTIME)" ASAN_OPTIONS=detect_leaks=0 \
				UBSAN_OPTIONS=print_stacktrace=1 TABLEZOO_HOSTILE_TRACE=build/hostile/$$game.trace \
				$(BIN)/python tests/games/test_hostile_objects.py $$game $(HOSTILE_SECONDS) > build/hostile/$$game.log 2>&1 & \
			pids="$$pids $$!:$$game"; \
		done; \
		for entry in $$pids; do \
			game=$${entry#*:}; if ! wait $${entry%%:*}; then tail -60 build/hostile/$$game.log; exit 1; fi; \
			tail -2 build/hostile/$$game.log | head -1; \
		done; \
	done
	$(BIN)/python native/fuzz/gcov_lines.py build/sanitize-coverage --json build/hostile/coverage.json

# The native core's own tests (native/tests/test_core.cc): every game and configuration played
# at random with an invariant check after every step, round trips of states through their field
# tables, refusals of bad configurations and states; built with the system's g++, no Python
# needed. `native-test-sanitize` builds the same with AddressSanitizer and
# UndefinedBehaviorSanitizer (-fno-wrapv: signed overflow is checked). The core's translation
# units, headers and include folders are native/sources.txt's (the list setup.py builds from).
native_sources = $(shell sed -n '/^\[$(1)\]/,/^\[/{/^[^[#]/p;}' native/sources.txt)
NATIVE_CORE := $(call native_sources,core)
NATIVE_HEADERS := $(call native_sources,headers)
NATIVE_INCLUDE := $(addprefix -I,$(call native_sources,include))
NATIVE_OUT := build/native
NATIVE_CXXFLAGS := -std=c++17 -g -Wall -Wextra -fno-wrapv $(NATIVE_INCLUDE)
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
NATIVE_TEST_GAMES ?= 4
# each build's objects of the core: build/native/<build>/<path under native/src>.o
native_objects = $(NATIVE_CORE:native/src/%.cc=$(NATIVE_OUT)/$(1)/%.o)

$(NATIVE_OUT)/plain/%.o: native/src/%.cc $(NATIVE_HEADERS) | compiler
	@mkdir -p $(@D)
	g++ $(NATIVE_CXXFLAGS) -O2 -c $< -o $@
$(NATIVE_OUT)/sanitize/%.o: native/src/%.cc $(NATIVE_HEADERS) | compiler
	@mkdir -p $(@D)
	g++ $(NATIVE_CXXFLAGS) -O1 $(SANITIZE_FLAGS) -c $< -o $@
$(NATIVE_OUT)/plain/test_core: native/tests/test_core.cc $(wildcard native/tests/*.h) $(call native_objects,plain)
	g++ $(NATIVE_CXXFLAGS) -O2 $< $(call native_objects,plain) -o $@
$(NATIVE_OUT)/sanitize/test_core: native/tests/test_core.cc $(wildcard native/tests/*.h) $(call native_objects,sanitize)
	g++ $(NATIVE_CXXFLAGS) -O1 $(SANITIZE_FLAGS) $< $(call native_objects,sanitize) -o $@

# (the objects are kept between builds)
.PRECIOUS: $(NATIVE_OUT)/plain/%.o $(NATIVE_OUT)/sanitize/%.o $(NATIVE_OUT)/fuzz/%.o

native-test: $(NATIVE_OUT)/plain/test_core
	$< --games $(NATIVE_TEST_GAMES)

native-test-sanitize: $(NATIVE_OUT)/sanitize/test_core
	UBSAN_OPTIONS=print_stacktrace=1 $< --games 2

# The coverage-guided fuzzer (native/fuzz/fuzz_state.cc, libFuzzer through clang): a state
# built from the fuzz bytes field by field, validated, then played (legal moves, raw action ids,
# forced and sampled chance, every observer, the bots' ports), under AddressSanitizer and
# UndefinedBehaviorSanitizer. One target per game, its seed corpus in native/fuzz/corpus/<game>/
# (`make fuzz-seeds` writes it anew from real games). FUZZ_SECONDS is each game's share.
FUZZ_GAMES := heckmeck sechs_nimmt diamant court
FUZZ_SECONDS ?= 6
FUZZ_CXX := clang++
FUZZ_FLAGS := -std=c++17 -g -O1 -fno-wrapv $(NATIVE_INCLUDE) -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer

# clang and its libFuzzer runtime: installed when missing and apt-get can (as root), otherwise
# the fuzz targets say they are skipped.
fuzzer:
	@if command -v $(FUZZ_CXX) >/dev/null && [ -f "$$($(FUZZ_CXX) -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang libclang-rt-14-dev >/dev/null; \
	else echo "no clang with libFuzzer: the fuzzer will be skipped (apt-get install clang libclang-rt-14-dev)"; fi

$(NATIVE_OUT)/fuzz/%.o: native/src/%.cc $(NATIVE_HEADERS)
	@mkdir -p $(@D)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
$(NATIVE_OUT)/fuzz/fuzz_%: native/fuzz/fuzz_state.cc $(wildcard native/tests/*.h) $(call native_objects,fuzz)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer -DFUZZ_GAME=$* $< $(call native_objects,fuzz) -o $@

# Each game's target for FUZZ_SECONDS from its seed corpus (new inputs go to a scratch folder,
# the corpus in the repository is only read); a crash stops it and leaves crash-* in build/native/fuzz.
fuzz: fuzzer
	@if ! command -v $(FUZZ_CXX) >/dev/null || [ ! -f "$$($(FUZZ_CXX) -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ]; then \
		echo "fuzz: skipped, no clang with libFuzzer's runtime"; exit 0; fi; \
	$(MAKE) --no-print-directory $(FUZZ_GAMES:%=$(NATIVE_OUT)/fuzz/fuzz_%) && \
	for game in $(FUZZ_GAMES); do \
		rm -rf $(NATIVE_OUT)/fuzz/work-$$game && mkdir -p $(NATIVE_OUT)/fuzz/work-$$game && \
		UBSAN_OPTIONS=print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 $(NATIVE_OUT)/fuzz/fuzz_$$game \
			-max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix=$(NATIVE_OUT)/fuzz/ $(NATIVE_OUT)/fuzz/work-$$game native/fuzz/corpus/$$game \
			> $(NATIVE_OUT)/fuzz/$$game.log 2>&1; status=$$?; \
		echo "fuzz $$game: $$(grep -E '^#[0-9]+[[:space:]]+DONE' $(NATIVE_OUT)/fuzz/$$game.log | tail -1)"; \
		if [ $$status != 0 ]; then tail -40 $(NATIVE_OUT)/fuzz/$$game.log; exit $$status; fi; \
	done

# The seed corpus written anew from real games of every configuration.
fuzz-seeds: $(NATIVE_OUT)/plain/test_core
	for game in $(FUZZ_GAMES); do rm -rf native/fuzz/corpus/$$game; mkdir -p native/fuzz/corpus/$$game; done
	$< --seeds native/fuzz/corpus

# Train a short Heckmeck agent (a few minutes on 2 cores), evaluate it against the bots,
# print the table and save the learning curve (runs/<run>/curve.png).
run: $(LINKED)
	$(BIN)/tablezoo train heckmeck_v0 --players 2 --timesteps 120000 --opponents heuristic random \
		--reward score --eval-every 40000 --eval-games 200 --out runs --seed 0

# One seeded Heckmeck game between random players, printed as the ansi render shows it.
demo: $(LINKED)
	$(BIN)/python -m tablezoo.envs.demo heckmeck_v0 --players 3 --seed 7

# The quick check a contributor runs before a commit (about a minute on 2 cores): ruff, the import
# contract and mypy (`lint`), then the tests of what the core install offers: the rules and their
# scenarios, the envs, scoring (the evaluation layer imports with numpy alone), the package's
# layout, its imports (no circle) and the command line's conventions. `make test` runs everything.
CORE_TESTS := tests/games/test_scenarios.py tests/games/test_heckmeck.py tests/games/test_sechs_nimmt.py \
	tests/games/test_diamant.py tests/games/test_court.py tests/envs/test_envs.py \
	tests/evaluation/test_layer.py tests/evaluation/test_tournament.py tests/tools/test_imports.py \
	tests/tools/test_layout.py tests/training/test_conventions.py
check: lint
	$(BIN)/pytest -q -n 2 -p no:cacheprovider $(CORE_TESTS)

# pytest (not `python -m pytest`) keeps the repository root off sys.path: tests import the
# installed package only (import mode importlib, set in pyproject.toml).
test: lint browser servers docs native-test fuzz
	$(BIN)/pytest -q -n 2 tests

# Debian's chromium and chromedriver for the browser test (tests/tables/test_browser.py);
# installed when missing and apt-get can (as root). Without them those tests are skipped,
# unless TABLEZOO_REQUIRE_BROWSER=1 (as in CI) makes it fail.
browser:
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	else echo "no chromium: the browser test will be skipped (apt-get install chromium chromium-driver)"; fi

# Debian's PostgreSQL and Redis for the cluster tests (tests/tables/cluster: each test process
# starts private servers of its own); installed when missing and apt-get can (as root). Without
# them those tests are skipped, unless TABLEZOO_REQUIRE_SERVERS=1 (as in CI) makes them fail.
servers:
	@if { ls /usr/lib/postgresql/*/bin/initdb || [ -x "$$(pg_config --bindir)/initdb" ]; } >/dev/null 2>&1 \
		&& command -v redis-server >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql redis-server >/dev/null; \
	else echo "no PostgreSQL or Redis: the cluster tests will be skipped (apt-get install postgresql redis-server)"; fi

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
		--watch envs --watch wrappers --watch tables --watch evaluation --watch training --watch release \
		--watch cli --watch benchmarks/results

# Both cores against OpenSpiel and connect_four, then the batched env against the Python env(),
# DummyVecEnv and SyncVectorEnv (each script measures its references in the same run).
bench: $(LINKED)
	$(BIN)/python benchmarks/throughput.py --table --out benchmarks/results/throughput.json
	$(BIN)/python benchmarks/batched.py --table --out benchmarks/results/batched.json

clean:
	rm -rf $(VENV) build site *.egg-info .pytest_cache .ruff_cache .hypothesis
