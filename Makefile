# Two entry points for people: `make run` and `make test`. Everything else is plumbing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint typecheck pytest bench clean

run: $(STAMP)
	$(BIN)/dicebridge serve --demo

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# mechanics/ is held to mypy --strict; the rest to the default checks.
typecheck: $(STAMP)
	$(BIN)/mypy --strict mechanics
	$(BIN)/mypy dicebridge vision firmware_host hardware server audit tests

pytest: $(STAMP)
	sh scripts/ensure-test-packages.sh
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/dicebridge bench engine

$(STAMP): pyproject.toml scripts/bootstrap-venv.sh
	PYTHON=$(PYTHON) sh scripts/bootstrap-venv.sh $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	touch $(STAMP)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
