# bench-ahci: the AHCI driver (drivers/ata/ahci*.c) on QEMU's q35: DMA write/read throughput in
# guest time at 0/50/100 % lost completions (ahci-noirq) for irqpolicy=irqkit, tejun2010,
# mainline, and the time a lost completion costs per command (tests/bench/ahci_bench.py).
# Figures and how to read them: docs/ahci.md, "Benchmark".
AHCI_BENCH_SECTORS ?= 4096

.PHONY: bench-ahci
BENCH_TARGETS += bench-ahci
bench-ahci: $(BUILD)/kernel.elf
	@mkdir -p $(BENCH_JSON_DIR)
	@$(PYTHON) tests/bench/ahci_bench.py --sectors $(AHCI_BENCH_SECTORS) --json $(BENCH_JSON_DIR)/ahci.json
