/* Stands in for Windows' bcryptprimitives.dll under a Wine older than 9 (Debian 12 has Wine 8.0), which lacks it.
 * Rust's standard library draws its random numbers (HashMap seeds) from ProcessPrng there, as on Windows 10 and
 * later; without the DLL the binary does not even start. Built and copied into the throwaway Wine prefix by
 * tests/windows/run only: it is never shipped, and a Wine that has the DLL keeps its own. */
#include <windows.h>

/* RtlGenRandom, exported by advapi32 as SystemFunction036: the generator Windows itself had before ProcessPrng. */
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
