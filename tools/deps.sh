#!/bin/sh
# deps.sh - make sure the Debian packages that build, run and test irqkit are
# installed. As root it installs what is missing with apt-get; otherwise it
# prints the exact command to run. `make run`, `make test` and `make bench`
# call it first, so a fresh Debian machine needs nothing else.
# `deps.sh gui` also wants QEMU's GTK display (`make run UI=gtk` calls it so):
# a window that shows the VGA text mirror and types on the PS/2 keyboard.
set -eu

# command-or-file  package
NEEDS="
i686-linux-gnu-gcc gcc-i686-linux-gnu
i686-linux-gnu-ld binutils-i686-linux-gnu
grub-mkrescue grub-common
/usr/lib/grub/i386-pc/moddep.lst grub-pc-bin
/usr/lib/grub/x86_64-efi/moddep.lst grub-efi-amd64-bin
/usr/lib/grub/i386-efi/moddep.lst grub-efi-ia32-bin
/usr/share/OVMF/OVMF_CODE_4M.fd ovmf
/usr/share/OVMF/OVMF32_CODE_4M.secboot.fd ovmf-ia32
xorriso xorriso
mformat mtools
qemu-system-i386 qemu-system-x86
gcc gcc
make make
clang clang
/usr/include/cmocka.h libcmocka-dev
/usr/include/zlib.h zlib1g-dev
valgrind valgrind
/usr/lib/python3/dist-packages/pytest/__init__.py python3-pytest
arm-none-eabi-gcc gcc-arm-none-eabi
riscv64-unknown-elf-gcc gcc-riscv64-unknown-elf
aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu
qemu-system-arm qemu-system-arm
qemu-system-aarch64 qemu-system-arm
qemu-system-riscv64 qemu-system-misc
/usr/share/qemu/opensbi-riscv64-generic-fw_dynamic.bin qemu-system-data
bochs bochs
/usr/share/bochs/BIOS-bochs-latest bochsbios
/usr/share/vgabios/vgabios.bin vgabios
chromium chromium
xvfb-run xvfb
gdb-multiarch gdb-multiarch
"
if [ "${1:-}" = gui ]; then
	NEEDS="$NEEDS
/usr/lib/x86_64-linux-gnu/qemu/ui-gtk.so qemu-system-gui
"
fi

missing=""
echo "$NEEDS" | while read -r what pkg; do
	[ -n "$what" ] || continue
	case "$what" in
	/*) [ -e "$what" ] && continue ;;
	*) command -v "$what" >/dev/null 2>&1 && continue ;;
	esac
	echo "$pkg"
done > /tmp/irqkit-missing.$$ || true
missing=$(sort -u /tmp/irqkit-missing.$$ | tr '\n' ' ')
rm -f /tmp/irqkit-missing.$$

# libFuzzer's runtime comes with clang's compiler-rt package on Debian 12.
if command -v clang >/dev/null 2>&1; then
	if ! echo 'int LLVMFuzzerTestOneInput(const char*d,unsigned long n){(void)d;(void)n;return 0;}' |
		clang -x c -fsanitize=fuzzer - -o /tmp/irqkit-fuzzcheck.$$ >/dev/null 2>&1; then
		missing="$missing libclang-rt-14-dev"
	fi
	rm -f /tmp/irqkit-fuzzcheck.$$
fi

[ -n "$(echo "$missing" | tr -d ' ')" ] || exit 0

echo "deps: missing packages: $missing"
if [ "$(id -u)" = 0 ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing
else
	echo "deps: run as root:  apt-get update && apt-get install -y $missing" >&2
	exit 1
fi
