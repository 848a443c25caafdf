"""Host-side helpers for the storage tests: make disk images, compute what
the kernel should print, and check what it wrote.

The test pattern is implemented here a second time, from its description in
docs/ata.md ("The test pattern"), not by calling or translating the kernel's
kernel/pattern.c, so a bug in one of them shows up as a disagreement:

  bytes  0..7   b"IRQKPAT1"
  bytes  8..15  LBA, 64-bit little-endian
  bytes 16..19  seed, 32-bit little-endian
  bytes 20..23  block size, 32-bit little-endian
  bytes 24..    xorshift64 (13, 7, 17) words, little-endian, starting from
                state = mix(mix(LBA + G) ^ seed), G = 0x9E3779B97F4A7C15,
                mix = the splitmix64 finaliser, a zero state replaced by G
"""
import os
import random
import struct
import zlib

SECTOR = 512
CD_BLOCK = 2048
MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MAGIC = b"IRQKPAT1"
HEADER = 24
CHUNK = 1 << 20


def _mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def stream_seed(seed, lba):
    state = _mix(_mix((lba + GOLDEN) & MASK64) ^ seed)
    return state or GOLDEN


def pattern_block(seed, lba, size=SECTOR):
    """The bytes of block @lba under @seed, @size bytes (a multiple of 8, >= 32)."""
    assert size % 8 == 0 and size >= 32
    out = bytearray(MAGIC + struct.pack("<QII", lba, seed, size))
    x = stream_seed(seed, lba)
    words = []
    for _ in range((size - HEADER) // 8):
        x ^= (x << 13) & MASK64
        x ^= x >> 7
        x ^= (x << 17) & MASK64
        words.append(x)
    out += struct.pack(f"<{len(words)}Q", *words)
    return bytes(out)


# -- images -------------------------------------------------------------------
def make_random_image(path, size, seed):
    """A raw image of @size bytes of reproducible random content; returns the content."""
    data = random.Random(seed).randbytes(size)
    with open(path, "wb") as f:
        f.write(data)
    return data


def make_sparse_image(path, size):
    """A raw image of @size bytes that takes no disk space (reads as zeros)."""
    with open(path, "wb") as f:
        f.truncate(size)


def write_at(path, offset, data):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def read_at(path, offset, length):
    with open(path, "rb") as f:
        f.seek(offset)
        return f.read(length)


def crc_of(path, offset=0, length=None):
    """zlib CRC-32 of @length bytes of the file from @offset (to the end when None)."""
    if length is None:
        length = os.path.getsize(path) - offset
    crc = 0
    with open(path, "rb") as f:
        f.seek(offset)
        left = length
        while left:
            chunk = f.read(min(CHUNK, left))
            assert chunk, f"{path} ends before {offset + length}"
            crc = zlib.crc32(chunk, crc)
            left -= len(chunk)
    return crc


# -- checks -------------------------------------------------------------------
def bad_pattern_blocks(path, seed, lba, count, size=SECTOR):
    """LBAs in [@lba, @lba + @count) whose content is not the pattern."""
    bad = []
    with open(path, "rb") as f:
        f.seek(lba * size)
        for i in range(count):
            if f.read(size) != pattern_block(seed, lba + i, size):
                bad.append(lba + i)
    return bad


def changed_ranges(path, original, skip_lba, skip_count, size=SECTOR):
    """Sectors outside [@skip_lba, +@skip_count) where the file differs from @original."""
    with open(path, "rb") as f:
        now = f.read()
    assert len(now) == len(original), "the image changed size"
    changed = []
    for lba in range(len(original) // size):
        if skip_lba <= lba < skip_lba + skip_count:
            continue
        if now[lba * size:(lba + 1) * size] != original[lba * size:(lba + 1) * size]:
            changed.append(lba)
    return changed
