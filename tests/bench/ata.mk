# bench-ata: drivers/ata, two parts.
#  1. Host: callgrind instruction counts of the driver's own code per
#     operation (tests/bench/ata_engine.c over the simulated IDE channel of
#     tests/unit/test_ata_sim.c; the simulator's cost is left out by summing
#     only the self cost of functions in drivers/ata/).
#  2. QEMU: sequential write/read throughput in guest time at 0/50/100 %
#     dropped interrupts for irqpolicy=irqkit, tejun2010, mainline
#     (tests/bench/ata_bench.py; needs ata wired into the kernel).
# Figures and how to read them: docs/ata.md, "Benchmark".
ATA_BENCH_BIN := $(BUILD)/host/bench/ata_engine
BENCH_HOST_BINS += $(ATA_BENCH_BIN)
ATA_BENCH_SRCS := tests/bench/ata_engine.c drivers/ata/ata_core.c drivers/ata/ata_identify.c \
	drivers/ata/ata_disk.c drivers/ata/atapi.c drivers/ata/ata_decode.c kernel/vsprintf.c kernel/errno.c
ATA_BENCH_OPS ?= 2000
ATA_BENCH_MODES := read16 read256 lost16 idle
ATA_BENCH_SECTORS ?= 2048

$(ATA_BENCH_BIN): $(ATA_BENCH_SRCS) tests/unit/test_ata_sim.c $(wildcard drivers/ata/*.h)
	@mkdir -p $(dir $@)
	$(HOSTCC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -DIRQKIT_HOST=1 $(HOST_INC) $(IRQKIT_IRQ_CONFIG) $(ATA_BENCH_SRCS) -o $@

.PHONY: bench-ata
BENCH_TARGETS += bench-ata
bench-ata: $(ATA_BENCH_BIN) $(BUILD)/kernel.elf
	@out=$(BUILD)/host/bench; \
	echo "bench-ata: drivers/ata's own instructions per operation (valgrind --tool=callgrind, host gcc -O2, $(ATA_BENCH_OPS) ops, simulated device not counted)"; \
	for mode in $(ATA_BENCH_MODES); do \
		valgrind --tool=callgrind --callgrind-out-file=$$out/ata-$$mode.callgrind \
			--toggle-collect=bench_ata_measure $(ATA_BENCH_BIN) $$mode $(ATA_BENCH_OPS) \
			> $$out/ata-$$mode.txt 2> $$out/ata-$$mode.log || { cat $$out/ata-$$mode.log; exit 1; }; \
		ir=$$(callgrind_annotate --inclusive=no --threshold=100 --auto=no $$out/ata-$$mode.callgrind \
			| awk '/drivers\/ata\/[^:]+:/ { gsub(",", "", $$1); n += $$1 } END { print n + 0 }'); \
		echo "$$mode $$ir"; \
	done | awk -v ops=$(ATA_BENCH_OPS) ' \
		BEGIN { d["read16"] = "READ MULTIPLE, 16 sectors, 1 interrupt"; \
			d["read256"] = "READ MULTIPLE, 256 sectors, 16 interrupts"; \
			d["lost16"] = "16 sectors, interrupt lost, driver recovers"; \
			d["idle"] = "handler call with nothing in flight" } \
		{ printf "  %-46s %8.1f Ir\n", d[$$1], $$2 / ops }'
	@$(PYTHON) tests/bench/ata_bench.py --sectors $(ATA_BENCH_SECTORS) --json $(BENCH_JSON_DIR)/ata.json
