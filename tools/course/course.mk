# The course's checks and generators (tools/course/, docs/course/README.md), included by the Makefile:
#   make course-transcripts   run every marked shell session of docs/course/*.md and docs/*.md and
#                             write the kernel's real output into the pages, and the measured times
#                             into docs/course/README.md (review the diff, commit)
#   make course-test          re-run them and fail where a page no longer has the kernel's shape; boot
#                             every `make run` line of the course; the pictures' layout in Chromium
#                             (part of make test)
# Boots played at once by the transcript check and generator (never two on one disk image). Two
# halve the check's time on this 2-core machine, beside two busy loops too: the icount sessions do
# not depend on the host's speed, and the several-CPU ones show only counts that do not depend on
# timing (docs/course/README.md, "Numbers and a busy host").
COURSE_JOBS ?= 2

.PHONY: course-transcripts course-test
course-transcripts: deps all
	$(PYTHON) tools/course/transcripts.py --write -j $(COURSE_JOBS)
	$(PYTHON) tools/course/times.py --write

course-test: deps all
	COURSE_JOBS=$(COURSE_JOBS) $(PYTHON) -m pytest -q -rfE tests/course $(PYTEST_ARGS)
