# bench-wheel: callgrind instruction counts of the timer wheel
# (kernel/time/timer_wheel.c): add+cancel pairs in steady state (10,000
# timers queued), and the expiry of 1,000 timers three ways: stepped tick
# by tick over 4096 ticks, in one jump, and all at one tick. Built -O2
# without sanitizers; only bench_wheel_measure() is counted
# (--toggle-collect; set-up is outside it). Figures go into docs/time.md.
WHEEL_BENCH_BIN := $(BUILD)/host/bench/bench_wheel
BENCH_HOST_BINS += $(WHEEL_BENCH_BIN)
WHEEL_BENCH_PAIRS ?= 100000

$(WHEEL_BENCH_BIN): tests/bench/bench_wheel.c kernel/time/timer_wheel.c kernel/time/timer_wheel.h
	@mkdir -p $(dir $@)
	$(HOSTCC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -DIRQKIT_HOST=1 $(HOST_INC) \
		tests/bench/bench_wheel.c kernel/time/timer_wheel.c -o $@

.PHONY: bench-wheel
BENCH_TARGETS += bench-wheel
bench-wheel: $(WHEEL_BENCH_BIN)
	@out=$(BUILD)/host/bench; \
	echo "bench-wheel: timer wheel, instructions (valgrind --tool=callgrind, host gcc -O2)"; \
	for mode in "addcancel $(WHEEL_BENCH_PAIRS)" step jump sametick; do \
		name=$${mode%% *}; \
		valgrind --tool=callgrind --callgrind-out-file=$$out/wheel-$$name.callgrind \
			--toggle-collect=bench_wheel_measure $(WHEEL_BENCH_BIN) $$mode \
			> $$out/wheel-$$name.txt 2> $$out/wheel-$$name.log || { cat $$out/wheel-$$name.log; exit 1; }; \
		ir=$$(awk '/^(summary|totals):/ { print $$2; exit }' $$out/wheel-$$name.callgrind); \
		n=$$(awk '/^ops/ { print $$2 }' $$out/wheel-$$name.txt); \
		c=$$(awk '/^cascades/ { print $$2 }' $$out/wheel-$$name.txt); \
		echo "$$name $$ir $$n $$c"; \
	done | awk ' \
		$$1 == "addcancel" { printf "  add+cancel, 10000 queued      %7.1f Ir per pair (%d pairs)\n", $$2 / $$3, $$3 } \
		$$1 == "step"      { printf "  expire 1000, tick by tick     %9d Ir total, %6.1f per timer (4096 advances, %d cascades)\n", $$2, $$2 / $$3, $$4 } \
		$$1 == "jump"      { printf "  expire 1000, one jump         %9d Ir total, %6.1f per timer (%d cascades)\n", $$2, $$2 / $$3, $$4 } \
		$$1 == "sametick"  { printf "  expire 1000 due at one tick   %9d Ir total, %6.1f per timer (%d cascades)\n", $$2, $$2 / $$3, $$4 }'
