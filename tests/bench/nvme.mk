# bench-nvme: drivers/nvme in QEMU q35 (MSI-X), guest time: write/read MB/s at
# 0/50/100 % lost completion interrupts (nvme-noirq:PERCENT) for irqpolicy=irqkit,
# tejun2010, mainline, with the time from a lost completion to its discovery
# beside Linux's 30 s NVMe time-out (tests/bench/nvme_bench.py). docs/nvme.md,
# "Benchmark", records the figures.
NVME_BENCH_BLOCKS ?= 16384

.PHONY: bench-nvme
BENCH_TARGETS += bench-nvme
bench-nvme: $(BUILD)/kernel.elf
	@$(PYTHON) tests/bench/nvme_bench.py --blocks $(NVME_BENCH_BLOCKS) --json $(BENCH_JSON_DIR)/nvme.json
