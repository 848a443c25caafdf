/*
 * crc32.h - the CRC-32 of zlib, Ethernet and PNG (ISO 3309 / ITU-T V.42
 * polynomial, bit-reflected, initial value and final XOR 0xFFFFFFFF), with
 * zlib's calling convention: start with crc = 0 and feed the previous result
 * back in to continue, so crc32(crc32(0, a, n), b, m) is the CRC of a then b.
 */
#ifndef KERNEL_CRC32_H
#define KERNEL_CRC32_H

#include <stddef.h>
#include <stdint.h>

/*
 * crc32 - continue the CRC @crc (0 to start) over @len bytes at @buf.
 * CONTEXT: any; no state, no locks. A NULL @buf gives 0, as in zlib.
 * RETURNS the CRC of everything fed so far; crc32(0, "123456789", 9) is
 * 0xCBF43926.
 */
uint32_t crc32(uint32_t crc, const void *buf, size_t len);

#endif
