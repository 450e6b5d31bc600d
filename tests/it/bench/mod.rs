//! The benchmark suite against the peers (ignored tests, run by `benches/run`).
