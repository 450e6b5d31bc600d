#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| obsmcp::fuzzing::vault_path(data));
