# `make demo` and `make test` are all a fresh machine with Python 3.11 needs.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: demo test lint format migrate serve venue worker beat bench clean-data

$(VENV)/.runtime: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: $(VENV)/.runtime requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

migrate: $(VENV)/.runtime
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput --verbosity 0

demo: migrate
	$(PY) manage.py demo
	@echo "Serving on http://$(HOST):$(PORT)/  (Ctrl-C to stop)"
	$(PY) manage.py runserver $(HOST):$(PORT)

serve: migrate
	$(VENV)/bin/gunicorn bunco_site.wsgi --bind $(HOST):$(PORT) --workers 3

# At the venue: serve on this laptop's network address (found in Python, no outside service),
# with that address allowed and used by QR codes and the board. See "At the venue" in README.
venue: migrate
	$(PY) manage.py venue --port $(PORT)

# The same over HTTPS, so staff phones also keep their pages offline (a service worker): the
# phones must trust CERT (README: "At the venue without Wi-Fi"). make venue-https CERT=.. KEY=..
.PHONY: venue-https
venue-https: migrate
	$(PY) manage.py venue --port $(PORT) --certfile "$(CERT)" --keyfile "$(KEY)"

worker: $(VENV)/.runtime
	$(VENV)/bin/celery -A bunco_site worker --loglevel INFO --concurrency 2

# The hourly clean-up of expired printouts and the half-minute sweep that sends again printouts
# a restarted Redis lost (CELERY_BEAT_SCHEDULE); its state file lives in the data folder.
# Without beat, `manage.py purge_printouts` cleans up once and Try again re-sends a printout.
beat: $(VENV)/.runtime
	$(VENV)/bin/celery -A bunco_site beat --loglevel INFO \
		--schedule "$${BUNCO_DATA_DIR:-data}/celerybeat-schedule"

# The page checkers the tests run (axe-core, the Nu HTML checker), pinned in package-lock.json
# and fetched from the npm registry; no install scripts (the Nu checker runs on the system's
# Java 17+). Without npm the checker test is skipped locally and fails in CI.
node_modules/.package-lock.json: package.json package-lock.json
	@if command -v npm >/dev/null; then npm ci --ignore-scripts --no-audit --no-fund; \
	else echo "npm not found: the page checker test (axe-core, Nu HTML checker) is skipped"; fi

test: $(VENV)/.dev node_modules/.package-lock.json
	$(PY) -m pytest $(PYTEST_ARGS)

# ruff, then the import contract in pyproject.toml (the layers in docs/architecture.md).
lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

format: $(VENV)/.dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: $(VENV)/.dev
	$(PY) bench/engine.py

# The event-night load test: two gunicorn instances, a Celery worker, PostgreSQL and Redis
# (both must be running; see bench/event_night.py --help for their addresses), about four
# minutes. BENCH_ARGS passes options, e.g. BENCH_ARGS="--duration 30".
.PHONY: bench-event-night
bench-event-night: $(VENV)/.runtime
	$(PY) bench/event_night.py $(BENCH_ARGS)

# The save flow's throughput against a bare 3-query view on the same gunicorn settings
# (bench/floor.py --help); PostgreSQL and Redis as for bench-event-night, about a minute.
.PHONY: bench-floor
bench-floor: $(VENV)/.runtime
	$(PY) bench/floor.py $(BENCH_ARGS)

# Each event-night page's CPU and queries at 24, 240 and 1,200 players (bench/pages.py
# --help); PostgreSQL and Redis as above, and the dev requirements (the tests' factories).
.PHONY: bench-pages
bench-pages: $(VENV)/.dev
	$(PY) bench/pages.py $(BENCH_ARGS)
