# Two commands on a fresh machine: `make serve` and `make test`. Both install first when needed.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3.13
VENV := .venv
BIN := $(abspath $(VENV))/bin
STAMP := $(VENV)/.installed-3.13
SCAN_VENV := .venv-scan
SCAN_STAMP := $(SCAN_VENV)/.installed-3.13
MUTATE_VENV := .venv-mutate
MUTATE_STAMP := $(MUTATE_VENV)/.installed-3.13
MUTATE_DIR := build/mutate
NODE_DIR := .node
NODE_STAMP := $(NODE_DIR)/.installed-commonmark-0.31.2
HOST_ARCH := $(if $(filter aarch64 arm64,$(shell uname -m)),arm64,x86_64)

export PATH := $(BIN):$(PATH)
export PYTHONPATH := $(abspath src/core):$(abspath src/handlers)
export SAM_CLI_TELEMETRY := 0
export AWS_DEFAULT_REGION ?= us-east-1
export HOST_ARCH
export CHECKOV := $(abspath $(SCAN_VENV))/bin/checkov

.PHONY: help install test test-fast lint typecheck validate scan unit fuzz mutate serve empty-local-bucket invoke backfill sample-documents build deploy remove-bucket openapi events bench bench-backfill clean check-node check-chromium

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

$(STAMP): requirements-dev.txt constraints.txt src/core/requirements.txt src/core/requirements-no-deps.txt src/core/constraints.txt
	@command -v $(PYTHON) >/dev/null || [ -x $(VENV)/bin/python ] || { echo "$(PYTHON) not found: install Python 3.13 \
	(pyenv install 3.13, or your system's package), or name it: make $(MAKECMDGOALS) PYTHON=/path/to/python3.13" >&2; exit 2; }
	@if [ -x $(VENV)/bin/python ] && ! $(VENV)/bin/python -c 'import sys; sys.exit(sys.version_info[:2] != (3, 13))'; then \
		echo "$(VENV) is not Python 3.13: recreating it" >&2; rm -rf $(VENV); fi
	@[ -x $(VENV)/bin/python ] || $(PYTHON) -m venv $(VENV)
	@echo "$(VENV): pip install -r requirements-dev.txt -c constraints.txt" >&2  # stderr: make invoke's stdout is JSON
	@$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt -c constraints.txt >&2
	@$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -r src/core/requirements-no-deps.txt -c constraints.txt >&2
	@touch $@

# commonmark.js, the CommonMark spec's reference implementation in JavaScript: the Markdown tests'
# judge (tests only; nothing of it ships), installed with the machine's Node.js and npm. Every target
# that runs those tests checks for both first (check-node), in one line, before any long step, as
# $(STAMP) does for Python 3.13; make serve and the other targets need neither.
$(NODE_STAMP): | check-node
	npm install --silent --no-audit --no-fund --no-save --prefix $(NODE_DIR) commonmark@0.31.2
	@touch $@

check-node:
	@for tool in node npm; do command -v $$tool >/dev/null || { echo "$$tool not found: install Node.js 20 or \
	newer with npm (your system's nodejs and npm packages, or nodejs.org): make $(MAKECMDGOALS) runs the Markdown \
	tests' reference, commonmark.js, on it" >&2; exit 2; }; done

# Chromium from the machine's packages: the playground's tests (tests/browser) drive it with Playwright
# for Python through its executable (never `playwright install`, which downloads a browser of its own).
# Installed with apt-get when it is missing and apt-get can (CI runs as root on a clean Debian machine);
# otherwise, as check-node does, one line saying what to install, before any long step.
CHROMIUM := /usr/bin/chromium
check-chromium:
	@[ -x $(CHROMIUM) ] || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
		{ echo "$(CHROMIUM) not found: apt-get install -y chromium" >&2; apt-get update -qq >&2 && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2; }; } || true
	@[ -x $(CHROMIUM) ] || { echo "$(CHROMIUM) not found: install your system's chromium package (Debian: \
	sudo apt-get install chromium): make $(MAKECMDGOALS) runs the playground's tests in it" >&2; exit 2; }

$(SCAN_STAMP): requirements-scan.txt constraints-scan.txt
	@[ -x $(SCAN_VENV)/bin/python ] || $(PYTHON) -m venv $(SCAN_VENV)
	$(SCAN_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-scan.txt -c constraints-scan.txt
	@touch $@

$(MUTATE_STAMP): requirements-mutate.txt constraints-mutate.txt src/core/requirements.txt src/core/requirements-no-deps.txt src/core/constraints.txt
	@[ -x $(MUTATE_VENV)/bin/python ] || $(PYTHON) -m venv $(MUTATE_VENV)
	$(MUTATE_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-mutate.txt -c constraints-mutate.txt
	$(MUTATE_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -r src/core/requirements-no-deps.txt -c constraints-mutate.txt
	@touch $@

install: $(STAMP) $(SCAN_STAMP) $(MUTATE_STAMP) $(NODE_STAMP) ## Create or update .venv (Python 3.13, pinned tools), .venv-scan (checkov), .venv-mutate (mutmut), .node (commonmark.js)

lint: $(STAMP) ## ruff check and format check
	ruff check .
	ruff format --check .

typecheck: $(STAMP) ## mypy (strict for src/core)
	mypy

validate: $(STAMP) ## sam validate --lint (cfn-lint included), the stack's template and the Knowledge Base example's
	sam validate --lint --template template.yaml
	sam validate --lint --template examples/knowledge-base/template.yaml

scan: $(SCAN_STAMP) ## checkov over both templates (every finding fixed or suppressed with a reason)
	$(CHECKOV) -f template.yaml -f examples/knowledge-base/template.yaml --framework cloudformation --compact --quiet --skip-download

unit: check-node check-chromium $(STAMP) $(SCAN_STAMP) $(NODE_STAMP) ## pytest only: tests/unit, tests/integration (moto, local servers), tests/packaging, tests/browser (Chromium)
	pytest

test: check-node check-chromium lint typecheck validate unit ## Everything CI runs

test-fast: check-node $(STAMP) $(NODE_STAMP) ## The unit tests alone (the pure core and the handlers in-process; under a minute)
	pytest tests/unit

fuzz: check-node $(STAMP) $(NODE_STAMP) ## The fuzz tests with many more examples (TEXT_TOOLS_FUZZ_EXAMPLES, default 5000; Markdown on every character: 4 times as many documents)
	TEXT_TOOLS_FUZZ_EXAMPLES=$${TEXT_TOOLS_FUZZ_EXAMPLES:-5000} pytest tests/integration/test_fuzz.py tests/unit/test_size_chunk_properties.py \
	  tests/unit/test_markdown_size_properties.py tests/unit/test_markdown_streaming.py tests/unit/test_hf_size_chunk.py

# mutmut finds modules only under ./ or src/: build/mutate is links that put src/core/texttools at
# src/texttools (docs/development.md, "Mutation testing"). Each run starts afresh: mutmut's cache keeps a survivor's
# verdict when only the tests change.
mutate: check-node $(MUTATE_STAMP) $(NODE_STAMP) ## Mutation testing of src/core with mutmut ([tool.mutmut] in pyproject.toml)
	@rm -rf $(MUTATE_DIR)/mutants && mkdir -p $(MUTATE_DIR)/src $(MUTATE_DIR)/mutants/src/texttools
	@ln -sfn $(abspath src/core/texttools) $(MUTATE_DIR)/src/texttools
	@ln -sfn $(abspath spec/seeds) $(MUTATE_DIR)/mutants/src/texttools/seeds  # mutmut copies no linked directory
	@ln -sfn $(abspath src/handlers) $(MUTATE_DIR)/src/handlers
	@for path in pyproject.toml tests scripts benchmarks spec events template.yaml openapi.json docs README.md LICENSE CHANGELOG.md .node; do \
		ln -sfn $(abspath .)/$$path $(MUTATE_DIR)/$$path; done
	cd $(MUTATE_DIR) && env -u PYTHONPATH $(abspath $(MUTATE_VENV))/bin/mutmut run
	cd $(MUTATE_DIR) && $(abspath $(MUTATE_VENV))/bin/mutmut results

serve: $(STAMP) ## The API on :3000 and the S3 flow on :5000, no Docker (PORT=, S3_PORT=, AUTH_MODE=, LOG_LEVEL=, CHUNKS_FORMAT=)
	python -m scripts.serve $(if $(PORT),--port $(PORT)) $(if $(S3_PORT),--s3-port $(S3_PORT)) $(if $(AUTH_MODE),--auth-mode $(AUTH_MODE)) \
		$(if $(LOG_LEVEL),--log-level $(LOG_LEVEL)) $(if $(CHUNKS_FORMAT),--chunks-format $(CHUNKS_FORMAT))

# The bucket's objects outlive a restart of make serve (docs/local.md); this is the one way to drop them.
empty-local-bucket: ## Delete every object make serve keeps in .local-bucket/ (stop make serve first)
	rm -rf .local-bucket

invoke: $(STAMP) ## In-process invoke: make invoke FN=DelimiterChunkFunction EVENT=events/DelimiterChunkFunction/success-example-1.json
	@[ -n "$(FN)" ] && [ -n "$(EVENT)" ] || { echo "usage: make invoke FN=<FunctionLogicalId> EVENT=<event.json>" >&2; exit 2; }
	@python -m scripts.invoke $(FN) $(EVENT)  # not echoed: stdout is the invocation's result only

backfill: $(STAMP) ## The backfill of make serve's bucket (or AWS_ENDPOINT_URL's): PREFIX=incoming/..., CHUNKS_FORMAT=
	$(if $(CHUNKS_FORMAT),CHUNKS_FORMAT=$(CHUNKS_FORMAT)) python -m scripts.backfill $(if $(PREFIX),--prefix $(PREFIX))

sample-documents: $(STAMP) ## The objects the document functions' sample events name, into make serve's S3 (or AWS_ENDPOINT_URL's)
	@python -m scripts.sample_documents

bench: $(STAMP) ## Speed, cold start, memory and scaling, side by side (writes build/bench/results.json)
	python -m benchmarks.bench

bench-backfill: $(STAMP) ## The backfill's driver over 10 000 small and 100 large documents in an embedded S3
	python -m benchmarks.backfill

openapi: $(STAMP) ## Regenerate openapi.json from the handlers' routes and models
	python -m scripts.openapi

events: $(STAMP) ## Regenerate the sample events under events/
	python -m scripts.sample_events

build: $(STAMP) ## sam build for this machine's architecture (no Docker)
	sam build --parameter-overrides Architecture=$(HOST_ARCH)

deploy: $(STAMP) ## sam build, then sam deploy --guided the first time (samconfig.toml keeps the answers), plain sam deploy after
	sam build
	@if grep -q '^parameter_overrides\|^region' samconfig.toml; then sam deploy; else sam deploy --guided; fi

remove-bucket: $(STAMP) ## Empty (every version) and delete a bucket that sam delete left: make remove-bucket BUCKET=<name>
	python -m scripts.remove_bucket "$(BUCKET)"

clean: ## Remove build outputs, mutation results and caches (keeps the venvs)
	rm -rf .aws-sam build .pytest_cache .mypy_cache .ruff_cache .hypothesis
