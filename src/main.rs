//! The `obsmcp` binary: all of it lives in the library (`src/lib.rs`), so that fuzz targets can reach the parsers.

fn main() -> std::process::ExitCode {
    obsmcp::main()
}
