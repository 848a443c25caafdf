#!/bin/sh
# check-multiboot.sh ELF - fail the build when the image would not boot:
# the multiboot header must lie in the first 8 KiB of the file (spec 3.1.1).
set -eu
elf=$1
if command -v grub-file >/dev/null 2>&1; then
	grub-file --is-x86-multiboot "$elf" || { echo "check-multiboot: $elf has no valid multiboot header in its first 8 KiB" >&2; exit 1; }
else
	off=$(od -A d -t x4 -N 8192 -v "$elf" | awk '/1badb002/ {print $1; exit}')
	[ -n "$off" ] || { echo "check-multiboot: no multiboot magic in the first 8 KiB of $elf" >&2; exit 1; }
fi
