# bench-fixup: the boot parameters irqfixup and irqpoll under a misrouted line, in
# QEMU, per irqpolicy (irqkit, tejun2010, mainline) in one run
# (tests/bench/fixup_bench.py): `inject irq-misroute:14/4` sends the disk's
# interrupts to the serial line's vector; per policy one boot with neither switch,
# one with irqfixup, one with irqpoll, each `ata bench` healthy then misrouted,
# `cpuload`, irqfixup's claims and the handler calls per disk interrupt from `irqs`.
# -icount shift=3,sleep=on (the disk's MB/s, as bench-ata). About 1 min. docs/benchmarks.md ("irqfixup and irqpoll")
# and docs/storms.md record the figures.
FIXUP_BENCH_SECTORS ?= 2048

.PHONY: bench-fixup
BENCH_TARGETS += bench-fixup
bench-fixup: $(BUILD)/kernel.elf
	@$(PYTHON) tests/bench/fixup_bench.py --sectors $(FIXUP_BENCH_SECTORS) --json $(BENCH_JSON_DIR)/fixup.json
