# bench-loaded: healthy lines under host load (issue 28; tests/bench/loaded_bench.py explains each
# figure): per disk (PIO ATA, NVMe) and per irqpolicy one boot, -smp 2 under multi-threaded TCG
# beside busy loops (tools/loaded.sh, one per host core), the disk's line on CPU 1: the false "lost"
# announcements and the share of healthy completions the polls took. Host time by design: the load
# average is recorded with the figures. docs/benchmarks.md ("Healthy lines under host load").
LOADED_BENCH_ARGS ?=

.PHONY: bench-loaded
BENCH_TARGETS += bench-loaded
bench-loaded: all
	@$(PYTHON) tests/bench/loaded_bench.py $(LOADED_BENCH_ARGS) --json $(BENCH_JSON_DIR)/loaded.json
