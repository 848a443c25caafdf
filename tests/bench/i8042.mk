# bench-i8042: PS/2 keystroke latency in QEMU under -icount (tests/bench/i8042_bench.py):
# healthy, with every Nth keyboard byte left in the controller (i8042-stuck:N) and with
# IRQ 1 misrouted (i8042-misroute), for irqpolicy=irqkit, tejun2010, mainline; guest time
# beside the host-observed (load-dependent) figure. Method and figures: docs/input.md, "Benchmark".
I8042_BENCH_KEYS ?= 20
I8042_BENCH_STUCK_EVERY ?= 10

.PHONY: bench-i8042
BENCH_TARGETS += bench-i8042
bench-i8042: $(BUILD)/kernel.elf
	@$(PYTHON) tests/bench/i8042_bench.py --keys $(I8042_BENCH_KEYS) --stuck-every $(I8042_BENCH_STUCK_EVERY) --json $(BENCH_JSON_DIR)/i8042.json
