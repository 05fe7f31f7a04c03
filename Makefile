# FinSync Chat: the two commands a newcomer needs, and a few more.
.PHONY: run test lint bench sample reliability

run:  ## set up, load the sample data into the embedded store, open the chat
	scripts/setup.sh
	.venv/bin/finsync sample --ingest
	.venv/bin/finsync serve

test:  ## set up everything the tests need and run the whole suite
	scripts/setup.sh test
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/lint-imports
	.venv/bin/python -m pytest

lint:
	.venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/lint-imports

bench:  ## ingestion, latency, exactness, memory and start-up at 100k and 1M rows on both backends; writes docs/BENCHMARK.md
	scripts/setup.sh bench
	.venv/bin/python -m scripts.bench

reliability:  ## run the hostile-input and fault suite and rewrite docs/RELIABILITY.md
	rm -f test-artifacts/reliability.jsonl
	FINSYNC_RELIABILITY_LOG=test-artifacts/reliability.jsonl .venv/bin/python -m pytest -m reliability -q
	.venv/bin/python -m scripts.reliability_report test-artifacts/reliability.jsonl docs/RELIABILITY.md
