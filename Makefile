# Two commands on a fresh machine: `make serve` and `make test`. Both install first when needed.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3.13
VENV := .venv
BIN := $(abspath $(VENV))/bin
STAMP := $(VENV)/.installed-3.13
HOST_ARCH := $(if $(filter aarch64 arm64,$(shell uname -m)),arm64,x86_64)

export PATH := $(BIN):$(PATH)
export PYTHONPATH := $(abspath src/core):$(abspath src/handlers)
export SAM_CLI_TELEMETRY := 0
export AWS_DEFAULT_REGION ?= us-east-1
export HOST_ARCH

.PHONY: help install test lint typecheck validate unit serve invoke build openapi events bench clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

$(STAMP): requirements-dev.txt constraints.txt src/core/requirements.txt
	@if [ -x $(VENV)/bin/python ] && ! $(VENV)/bin/python -c 'import sys; sys.exit(sys.version_info[:2] != (3, 13))'; then \
		echo "$(VENV) is not Python 3.13: recreating it"; rm -rf $(VENV); fi
	@[ -x $(VENV)/bin/python ] || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt -c constraints.txt
	@touch $@

install: $(STAMP) ## Create or update .venv (Python 3.13, pinned tools)

lint: $(STAMP) ## ruff check and format check
	ruff check .
	ruff format --check .

typecheck: $(STAMP) ## mypy (strict for src/core)
	mypy

validate: $(STAMP) ## sam validate --lint (cfn-lint included)
	sam validate --lint --template template.yaml

unit: $(STAMP) ## pytest only
	pytest

test: lint typecheck validate unit ## Everything CI runs

serve: $(STAMP) ## The API on :3000 (docs at /docs) and the S3 flow on :5000, real handlers, no Docker
	python -m scripts.serve

invoke: $(STAMP) ## In-process invoke: make invoke FN=DelimiterChunkFunction EVENT=events/DelimiterChunkFunction/success.json
	@[ -n "$(FN)" ] && [ -n "$(EVENT)" ] || { echo "usage: make invoke FN=<FunctionLogicalId> EVENT=<event.json>"; exit 2; }
	python -m scripts.invoke $(FN) $(EVENT)

bench: $(STAMP) ## Speed, cold start, memory and scaling, side by side (writes benchmarks/results.json)
	python -m benchmarks.bench

openapi: $(STAMP) ## Regenerate openapi.json from the handlers' routes and models
	python -m scripts.openapi

events: $(STAMP) ## Regenerate the sample events under events/
	python -m scripts.sample_events

build: $(STAMP) ## sam build for this machine's architecture (no Docker)
	sam build --parameter-overrides Architecture=$(HOST_ARCH)

clean: ## Remove build outputs and caches (keeps .venv)
	rm -rf .aws-sam .pytest_cache .mypy_cache .ruff_cache .hypothesis
