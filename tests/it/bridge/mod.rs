//! `obsmcp bridge` end to end: the real binary between a test client on its stdio and real upstreams — the obsmcp
//! plugin hosted in Node, `@modelcontextprotocol/server-everything` over HTTP and stdio — with faults injected by
//! killing, freezing and restarting those processes.

mod budget;
mod child;
mod client;
mod faults;
mod http;
mod vault;
