# Host unit test: the timer wheel against a reference model with 100,000
# timers and random add/modify/cancel/advance (kernel/time/timer_wheel.c).
UNIT_TESTS += wheel_model
UNIT_wheel_model_SRCS := tests/unit/test_wheel_model.c kernel/time/timer_wheel.c
