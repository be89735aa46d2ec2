# Entry points for people and CI. The infrastructure (Kafka, schema registry, PostgreSQL,
# Redis, devnet) is run by infra/stack.sh; see infra/README.md.
#
#   make stack-up / stack-down / stack-status            local profile (infra/env/local.env)
#   make test-stack-up / test-stack-down / test-stack-status   test profile (infra/env/test.env)
#   make install / build
#   make up / down / test                                  the whole thing
#   make test-ready                                        build + test stack, as make test prepares them
#   make test-outages                                      the four outage tests alone (docs/outages.md)
#   make bench-orders / bench-webhooks                     figures (bench/README.md)
#   Every recipe runs on the pinned Node (infra/node/version), fetched once from the npm registry.
#
# The environment passes through: a variable set by the caller wins over the profile,
# e.g. `KAFKA_BROKERS=127.0.0.1:29092 make test-stack-up`.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

STACK := infra/stack.sh

# ------------------------------------------------------------------ node runtime
# Every recipe runs on the pinned Node (infra/node/version, fetched once from the npm registry into
# ~/.cache/energy-rental/node by infra/node/ensure.sh); the machine's node only bootstraps that download.
# PROJECT_NODE=system make ... keeps the machine's node (for comparing the two).
NODE_BIN := $(shell infra/node/ensure.sh || echo FAILED)
ifeq ($(NODE_BIN),FAILED)
$(error could not fetch the pinned Node (infra/node/ensure.sh); PROJECT_NODE=system uses the machine's)
endif
ifneq ($(NODE_BIN),)
export PATH := $(NODE_BIN):$(PATH)
endif

.PHONY: help install build \
	stack-up stack-down stack-status stack-reset stack-check \
	test-stack-up test-stack-down test-stack-status test-stack-reset test-stack-check \
	up down test

help:
	@awk '/^#/ { sub(/^# ?/, ""); print; next } { exit }' Makefile

# ------------------------------------------------------------------ node
# npm ci only when node_modules is missing or package-lock.json changed since the last
# install (npm writes node_modules/.package-lock.json on every install). From npm's cache when it holds the
# exact tarballs (--prefer-offline: no metadata round trip per package), without the audit and funding requests.
install: node_modules/.package-lock.json

node_modules/.package-lock.json: package-lock.json
	npm ci --prefer-offline --no-audit --no-fund
	@touch $@

build: install
	npm run build

# ------------------------------------------------------------------ stacks
stack-up:
	$(STACK) --profile local up

stack-down:
	$(STACK) --profile local down

stack-status:
	$(STACK) --profile local status

# Deletes the local stack's topics and schemas (not the service's database).
stack-reset:
	$(STACK) --profile local reset

stack-check: install
	infra/env/load.sh local -- npx tsx infra/registry/check-client.ts

test-stack-up:
	$(STACK) --profile test up

test-stack-down:
	$(STACK) --profile test down

test-stack-status:
	$(STACK) --profile test status

test-stack-reset:
	$(STACK) --profile test reset

test-stack-check: install
	infra/env/load.sh test -- npx tsx infra/registry/check-client.ts

# ------------------------------------------------------------------ whole system
# What the machine must provide (Linux, Java 17+, Maven, PostgreSQL trusting its user, Redis...), all
# named at once with the command that installs each (infra/env/prereqs.sh), before anything is fetched.
.PHONY: prereqs
prereqs:
	infra/env/load.sh local -- infra/env/prereqs.sh

# Start everything in the background, return when ready, print the URLs (contract §8).
up: prereqs build stack-up
	infra/env/load.sh local -- infra/service/ctl.sh start

down:
	infra/env/load.sh local -- infra/service/ctl.sh stop
	$(MAKE) stack-down

# Every test, against the test profile's stack (other ports, databases, Redis db). The build is the
# type check; then (.ci/test-phases.sh, each phase timed) the integration tests: files run TEST_WORKERS at a time
# (each file has its own world: topics, database), with
# the unit and browser projects beside them (TEST_BROWSER=after puts the browser project last again) and the
# outage tests (test/integration/outages/, private Kafka, Redis, PostgreSQL and devnet) one at a time beside
# them: each stops a part for 5 to 30 s and judges answer times, waiting more than it computes.
# `make test-outages` runs just those four; TEST_OUTAGES=serial runs them beside the serial files instead.
# Afterwards, TEST_SERIAL_WORKERS (2) at a time, the crash tests (SIGKILL and restart timing: too tight to share
# the CPU with phase 1, fine two at a time). Last, one at a time and alone (ALONE_TESTS): webhooks delivery (a 20x
# clock: its command deadline is 250 ms of real time; beside a crash test its credit missed that deadline) and the
# restore test (its dispatcher position is judged on a billion-fold clock; it failed twice beside other files in
# fresh-clone runs, with the failure hidden by jest's worker message, and passed alone). TEST_WORKERS stays 2: at
# 3, phase 1's summed file time grew by half and its wall time not at all (2026-11-23, bench/README.md); at 4, ten
# phase-1 files took as long as at 2 and 20-30% more CPU (2026-11-23 18:50-19:10, load 11-24, bench/README.md).
# The summary prints how busy the machine's cores were in each phase (/proc/stat, the stack's daemons included):
# more lanes can only help a phase that left cores idle. TEST_OUTAGE_WORKERS (1) runs the outage files that many
# at a time (each has its own ports); TEST_PHASES=1 stops after phase 1 (to compare lane settings).
# --forceExit: a client library's idle socket must not keep CI waiting after the last test has reported.
TEST_WORKERS ?= 2
SERIAL_TESTS := crash-safety\.test\.ts|/crash\.test\.ts|/outages/(kafka|redis|postgres|devnet)\.test\.ts
ALONE_TESTS := webhooks/delivery\.test\.ts|recovery/restore\.test\.ts
#
# test-ready (what `make test` runs first): the build beside the start of PostgreSQL, Redis, Kafka and the registry
# (neither needs the other: tsc's three checks and the two JVMs' start overlap instead of following each other),
# then the devnet, after the build, so it starts from dist (infra/devnet/ctl.sh) and not through tsx. On a failure
# of either, the other is still waited for, so its output is whole. Maven does not run in a fresh clone when the
# user's cache holds the stack's downloads (infra/env/lib.sh), nor is Node fetched again (infra/node/ensure.sh).
.PHONY: test-ready
test-ready: install
	$(STACK) --profile test up --only postgres,redis,kafka,registry & stack=$$!; \
	built=0; npm run build || built=$$?; started=0; wait $$stack || started=$$?; \
	if (( built != 0 || started != 0 )); then echo "build exit $$built, stack start exit $$started" >&2; exit 1; fi
	$(STACK) --profile test up
test: test-ready
	TEST_WORKERS='$(TEST_WORKERS)' SERIAL_TESTS='$(SERIAL_TESTS)' ALONE_TESTS='$(ALONE_TESTS)' .ci/test-phases.sh

.PHONY: test-outages
test-outages: build test-stack-up
	infra/env/load.sh test -- npx jest --ci --selectProjects integration --runInBand --forceExit --testPathPattern '/outages/'

# ------------------------------------------------------------------ benchmarks (bench/README.md)
# Against the test profile's stack, on the pinned Node. Not tests: they print figures.
.PHONY: bench-orders bench-webhooks
bench-orders: install test-stack-up
	infra/env/load.sh test -- npx tsx bench/orders.ts

bench-webhooks: install test-stack-up
	infra/env/load.sh test -- npx tsx bench/webhooks.ts

.PHONY: bench-batches
bench-batches: install test-stack-up
	infra/env/load.sh test -- npx tsx bench/batches.ts

.PHONY: bench-stats
bench-stats: install test-stack-up
	infra/env/load.sh test -- npx tsx bench/stats.ts

# Victims' p99 with and without a stream of poison commands, side by side (bench/poison.ts).
.PHONY: bench-poison
bench-poison: install test-stack-up
	infra/env/load.sh test -- npx tsx bench/poison.ts

# ------------------------------------------------------------------ chaos (not in make test)
# A few minutes of mixed load with SIGKILL storms across every role and outages of Kafka, Redis, the devnet
# and PostgreSQL (its own instances; only the registry is the test stack's), then the invariants with their
# counts (test/chaos/run.ts). CHAOS_ROUNDS=4 by default. Every role group's whole log is kept in
# CHAOS_LOG_DIR (default /tmp/chaos-logs, one file per group); an order left unsettled is described.
.PHONY: chaos
chaos: install test-stack-up
	infra/env/load.sh test -- npx tsx test/chaos/run.ts
