# bench-defences: kernel/irq's three defences per profile (irqkit, tejun2010,
# mainline) side by side, from the virtual-time simulator (tests/unit/sim/):
# completions/s of a disk-like device at 0/50/100 % interrupt loss (ratio to
# 0 %), interrupts taken before a flood is contained, time until a line is
# back on interrupts after a flood, and the callgrind instruction count of
# expect_irq+unexpect_irq on a verified token (plus the port locks and poll
# timer arms per pair: the target is none of either), and what one poll
# timer event costs at 100 % loss beside one interrupt at 0 % (the
# "delivery" mode; the poll path's price per completion). gcc -O2 host build
# without sanitizers; docs/defences.md records the figures.
DEFENCES_BENCH_BIN := $(BUILD)/host/bench/defences_bench
BENCH_HOST_BINS += $(DEFENCES_BENCH_BIN)
DEFENCES_BENCH_PAIRS ?= 20000
DEFENCES_BENCH_SRCS := tests/bench/defences_bench.c $(sort $(wildcard kernel/irq/*.c)) \
	tests/host/irq_port_host.c tests/unit/sim/sim.c tests/unit/sim/sim_dev.c

$(DEFENCES_BENCH_BIN): $(DEFENCES_BENCH_SRCS) $(wildcard kernel/irq/*.h) tests/host/irq_port_host.h tests/unit/sim/sim.h
	@mkdir -p $(dir $@)
	$(HOSTCC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -DIRQKIT_HOST=1 $(HOST_INC) $(IRQKIT_IRQ_CONFIG) -Itests/unit \
		$(DEFENCES_BENCH_SRCS) -o $@ -lpthread

.PHONY: bench-defences
BENCH_TARGETS += bench-defences
bench-defences: $(DEFENCES_BENCH_BIN)
	@out=$(BUILD)/host/bench; json=$(BENCH_JSON_DIR)/defences.json; mkdir -p $(BENCH_JSON_DIR); \
	printf '{"bench": "defences", "pairs": %d, "cc": "%s", "valgrind": "%s", "verified": {' \
		$(DEFENCES_BENCH_PAIRS) "$$($(HOSTCC) -dumpfullversion)" "$$(valgrind --version)" > $$json.tmp; \
	echo "bench-defences: kernel/irq defences per profile (virtual-time simulator, exact)"; \
	$(DEFENCES_BENCH_BIN) sim || exit 1; \
	printf "  %-44s" "expect_irq+unexpect_irq, verified (Ir/pair)"; \
	for p in irqkit tejun2010 mainline; do \
		valgrind --tool=callgrind --callgrind-out-file=$$out/defences-$$p.callgrind \
			--toggle-collect=bench_expect_measure $(DEFENCES_BENCH_BIN) verified $$p $(DEFENCES_BENCH_PAIRS) \
			> $$out/defences-$$p.txt 2> $$out/defences-$$p.log || { cat $$out/defences-$$p.log; exit 1; }; \
		ir=$$(awk '/^(summary|totals):/ { print $$2; exit }' $$out/defences-$$p.callgrind); \
		awk -v ir=$$ir -v n=$(DEFENCES_BENCH_PAIRS) '/^locks_per_pair/ { \
			printf " %7.1f (%s lk, %s arm)", ir / n, $$2 + 0, $$4 + 0 }' $$out/defences-$$p.txt; \
		awk -v ir=$$ir -v n=$(DEFENCES_BENCH_PAIRS) -v p=$$p '/^locks_per_pair/ { \
			printf "%s\"%s\": {\"ir\": %.1f, \"locks\": %s, \"arms\": %s}", \
			p == "irqkit" ? "" : ", ", p, ir / n, $$2 + 0, $$4 + 0 }' $$out/defences-$$p.txt >> $$json.tmp; \
	done; echo; echo "}}" >> $$json.tmp && mv $$json.tmp $$json; \
	echo "  (mainline has no expecting: its pair only checks the profile and returns)"; \
	printf "  %-44s" "irqkit, per poll timer event at 100 % loss"; \
	valgrind --tool=callgrind --callgrind-out-file=$$out/defences-poll.callgrind \
		--toggle-collect=irq_poll_timer_expired $(DEFENCES_BENCH_BIN) delivery irqkit 100 \
		> $$out/defences-poll.txt 2> $$out/defences-poll.log || { cat $$out/defences-poll.log; exit 1; }; \
	ir=$$(awk '/^(summary|totals):/ { print $$2; exit }' $$out/defences-poll.callgrind); \
	awk -v ir=$$ir '/^completions/ { printf " %7.1f Ir (%s events, %s completions)\n", ir / $$4, $$4, $$2 }' $$out/defences-poll.txt; \
	printf "  %-44s" "irqkit, per interrupt at 0 % loss"; \
	valgrind --tool=callgrind --callgrind-out-file=$$out/defences-irq.callgrind \
		--toggle-collect=generic_handle_irq $(DEFENCES_BENCH_BIN) delivery irqkit 0 \
		> $$out/defences-irq.txt 2> $$out/defences-irq.log || { cat $$out/defences-irq.log; exit 1; }; \
	ir=$$(awk '/^(summary|totals):/ { print $$2; exit }' $$out/defences-irq.callgrind); \
	awk -v ir=$$ir '/^completions/ { printf " %7.1f Ir (%s interrupts)\n", ir / $$6, $$6 }' $$out/defences-irq.txt; \
	echo "  (both include the simulated device's handler and the host port's pthread locks)"
