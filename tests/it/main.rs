//! The one integration-test binary: every test drives the real `obsmcp` binary (and, where needed, the plugin hosted
//! in Node) with a fresh temporary home, so nothing here can touch the developer's own configuration.

mod bridge;
mod cli;
mod doctor;
mod independent;
mod offline;
mod setup;
mod soak;
mod support;
