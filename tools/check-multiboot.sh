#!/bin/sh
# check-multiboot.sh ELF - fail the build when the image would not boot: the
# multiboot header must lie in the first 8 KiB of the file (spec 0.6.96 3.1.1)
# and the multiboot2 header, 8-byte aligned, in the first 32 KiB (spec 2.0
# 3.1.1), each with a checksum GRUB accepts.
set -eu
elf=$1
if command -v grub-file >/dev/null 2>&1; then
	grub-file --is-x86-multiboot "$elf" || { echo "check-multiboot: $elf has no valid multiboot header in its first 8 KiB" >&2; exit 1; }
	grub-file --is-x86-multiboot2 "$elf" || { echo "check-multiboot: $elf has no valid multiboot2 header in its first 32 KiB" >&2; exit 1; }
else
	off=$(od -A d -t x4 -N 8192 -v "$elf" | awk '/1badb002/ {print $1; exit}')
	[ -n "$off" ] || { echo "check-multiboot: no multiboot magic in the first 8 KiB of $elf" >&2; exit 1; }
	off=$(od -A d -t x4 -N 32768 -v "$elf" | awk '/e85250d6/ {print $1; exit}')
	[ -n "$off" ] || { echo "check-multiboot: no multiboot2 magic in the first 32 KiB of $elf" >&2; exit 1; }
fi
