# Two commands run everything (see README): `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PORT ?= 8501
# Loopback only (the dashboard has no login); ADDRESS=0.0.0.0 exposes it on purpose.
ADDRESS ?= 127.0.0.1

.PHONY: demo warehouse app test lint fetch clean browser

$(STAMP): requirements.txt requirements-dev.txt requirements-embedded.txt
	$(PYTHON) -m venv $(VENV)
	@echo "Installing the Python packages into $(VENV) (a few minutes the first time: pip prints each package as it goes)..."
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --progress-bar off -r requirements-dev.txt
	$(PY) -m pip install --progress-bar off --no-deps -r requirements-embedded.txt
	touch $(STAMP)

## Build the demo warehouse (DATA=DIR for a local copy of the public data) and start the dashboard.
demo: warehouse app

warehouse: $(STAMP)
	$(PY) -m pipeline demo $(if $(DATA),--data "$(DATA)")

app: $(STAMP)
	$(VENV)/bin/streamlit run app/main.py --server.address $(ADDRESS) --server.port $(PORT)

## Lint and run the test suite (DATA=DIR points the tests at the real data; .ci/run sets it).
test: $(STAMP) lint browser
	$(PY) -m pytest

## Debian's Chromium for the end-to-end test (Playwright drives it; no browser download).
browser:
	@command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

## Download the public data into the user cache (needs internet).
fetch: $(STAMP)
	$(PY) -m pipeline data fetch

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
