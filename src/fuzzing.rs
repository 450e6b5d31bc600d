//! Entry points for the fuzz targets under `fuzz/`. Not part of any stable interface: each function wraps one
//! crate-private parser so that a target can drive it with arbitrary input.
