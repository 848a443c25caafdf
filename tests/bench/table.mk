# bench-table: the one benchmark table of issue 8 (tests/bench/bench_table.py).
# Every bench writes its figures as JSON into BENCH_JSON_DIR (bench-ata: ata.json,
# bench-usb: usb.json, bench-i8042: i8042.json, bench-storm: storm.json, bench-fixup: fixup.json, bench-irq: irq.json, bench-nvme: nvme.json, bench-ahci: ahci.json, bench-smp: smp.json, bench-defences:
# defences.json); `make bench` runs bench-start first (it removes the previous run's
# files and touches the stamp), then every bench, then bench-table, which prints one
# table with a column per irqpolicy and writes it as Markdown to BENCH_JSON_DIR/table.md.
# It fails (exit 1) when a file is missing or older than the stamp. `make bench-table`
# alone re-prints the table of the last complete run. Not in BENCH_TARGETS: the
# top-level Makefile's `bench` rule orders it after them. docs/benchmarks.md, "The table".
BENCH_JSON_DIR := $(BUILD)/bench
BENCH_STAMP := $(BENCH_JSON_DIR)/.run-started

.PHONY: bench-start bench-table
bench-start:
	@mkdir -p $(BENCH_JSON_DIR)
	@rm -f $(BENCH_JSON_DIR)/*.json $(BENCH_JSON_DIR)/table.md
	@touch $(BENCH_STAMP)

bench-table:
	@$(PYTHON) tests/bench/bench_table.py --dir $(BENCH_JSON_DIR) --since $(BENCH_STAMP)
