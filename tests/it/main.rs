//! The one integration-test binary: every test drives the real `obsmcp` binary (and, where needed, the plugin hosted
//! in Node) with a fresh temporary home, so nothing here can touch the developer's own configuration. The benchmark
//! suite (`benches/suite/`) and the fault soak (`tests/soak/`) share `support/` but are bench targets of their own,
//! which `cargo test` does not build.

mod bridge;
mod cli;
mod doctor;
mod independent;
mod offline;
mod setup;
mod support;
