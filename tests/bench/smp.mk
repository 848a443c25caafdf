# bench-smp: several CPUs (tests/bench/smp_bench.py explains each figure): interrupts a second
# one line (hpet-storm, defences off) takes on 1 CPU, on CPU 1 of 2, and moved round 2 CPUs;
# ATA MB/s healthy and at 100 % lost interrupts with the disk's interrupt on CPU 1 and the poll
# timers on CPU 0, per irqpolicy (multi-threaded TCG: host time, meaningful on a quiet machine);
# the cost of one affinity move in guest time (-icount shift=3,sleep=off, repeatable).
# docs/benchmarks.md ("Several CPUs") records them. SMP_BENCH_ARGS="--skip-host-time" measures
# only the repeatable figure.
SMP_BENCH_ARGS ?=

.PHONY: bench-smp
BENCH_TARGETS += bench-smp
bench-smp: all
	@$(PYTHON) tests/bench/smp_bench.py $(SMP_BENCH_ARGS) --json $(BENCH_JSON_DIR)/smp.json
