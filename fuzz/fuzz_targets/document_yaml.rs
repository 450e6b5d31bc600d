#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| obsmcp_installer::document::fuzzing::document_yaml(data));
