# bench-storm: interrupt storms in QEMU per irqpolicy profile (irqkit, tejun2010,
# mainline), in one run, under -icount shift=3,sleep=off (guest time = executed
# instructions, so the figures repeat): interrupts and ms until the flood
# defence contains the storm, the share of CPU time lost to it before
# containment (defences off) and after (cpuload: busy loop with interrupts on
# vs off), and the time until the line is re-enabled and declared healthy
# after the storm stops. Sources: spurious-flood (edge self-IPIs on IRQ 14,
# IOAPIC) and e1000-storm (level IRQ 11, noapic = raw 8259 and IOAPIC =
# QEMU-throttled; only when a driver requests IRQ 11). tests/bench/storm_bench.py
# explains each figure; docs/benchmarks.md ("Storms") records them.
STORM_BENCH_ARGS ?=

.PHONY: bench-storm
BENCH_TARGETS += bench-storm
bench-storm: all
	@$(PYTHON) tests/bench/storm_bench.py $(STORM_BENCH_ARGS) --json $(BENCH_JSON_DIR)/storm.json
