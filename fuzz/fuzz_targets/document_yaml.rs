#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| obsmcp::fuzzing::document_yaml(data));
