// CRC-32C (Castagnoli), the checksum the disk cache keeps beside each file to notice damage. Hardware
// instructions where the CPU has them (SSE 4.2 on x86-64, the CRC extension on ARMv8), a table otherwise.
#ifndef CCHECKSUM_H
#define CCHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/// The CRC-32C of `length` bytes at `bytes` (initial value and final XOR 0xFFFFFFFF, reflected; "123456789"
/// gives 0xE3069283).
uint32_t kf_crc32c(const void *bytes, size_t length);

/// The same, always computed with the table (to check the hardware path against).
uint32_t kf_crc32c_portable(const void *bytes, size_t length);

#endif
