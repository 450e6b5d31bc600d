//! The safetensors format, read by hand: an 8-byte little-endian header length, a JSON header naming each tensor's
//! dtype, shape and byte range, then the data. A reader of the three tensors a Model2Vec model has is short; the
//! `safetensors` crate would add its own copy of the same.
//!
//! Tensors are read from the file a row at a time (never the whole file at once), so that loading a 30 MB model
//! costs the bridge's memory only what it keeps: the embedding rows as signed bytes with a scale per row.

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};

use serde::Deserialize;

#[derive(Deserialize)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: [u64; 2],
}

/// The embedding rows as signed bytes, each row with the scale that turns it back.
pub(super) struct QuantizedRows {
    pub(super) rows: usize,
    pub(super) dims: usize,
    pub(super) values: Vec<i8>,
    pub(super) scales: Vec<f32>,
}

/// A safetensors file's header, and where its data starts.
pub(super) struct Tensors<R> {
    header: BTreeMap<String, serde_json::Value>,
    data_start: u64,
    file_length: u64,
    reader: R,
}

impl<R: Read + Seek> Tensors<R> {
    /// Reads the header; the data is read tensor by tensor.
    pub(super) fn open(mut reader: R) -> Result<Self, String> {
        let file_length = reader
            .seek(SeekFrom::End(0))
            .map_err(|error| error.to_string())?;
        reader
            .seek(SeekFrom::Start(0))
            .map_err(|error| error.to_string())?;
        let mut length = [0u8; 8];
        reader
            .read_exact(&mut length)
            .map_err(|_| "not a safetensors file (shorter than its header length)")?;
        let length = u64::from_le_bytes(length);
        if length > file_length.saturating_sub(8) || length > 100 << 20 {
            return Err("not a safetensors file (its header is longer than the file)".into());
        }
        let mut header = vec![0u8; length as usize];
        reader
            .read_exact(&mut header)
            .map_err(|error| format!("not a safetensors file (header: {error})"))?;
        let header = serde_json::from_slice(&header)
            .map_err(|error| format!("not a safetensors file (header: {error})"))?;
        Ok(Self {
            header,
            data_start: 8 + length,
            file_length,
            reader,
        })
    }

    /// A tensor's entry and its element width, positioned at its first byte; `None` when the file has no such tensor.
    fn entry(&mut self, name: &str) -> Result<Option<(Entry, usize)>, String> {
        let Some(value) = self.header.get(name) else {
            return Ok(None);
        };
        let entry: Entry = serde_json::from_value(value.clone())
            .map_err(|error| format!("tensor `{name}`: {error}"))?;
        let [start, end] = entry.data_offsets;
        if start > end || self.data_start + end > self.file_length {
            return Err(format!(
                "tensor `{name}` lies outside the file (truncated?)"
            ));
        }
        let width = match entry.dtype.as_str() {
            "F64" | "I64" | "U64" => 8,
            "F32" | "I32" | "U32" => 4,
            "F16" | "BF16" | "I16" | "U16" => 2,
            "I8" | "U8" => 1,
            other => {
                return Err(format!(
                    "tensor `{name}` has dtype {other}, which obsmcp does not read"
                ));
            }
        };
        let count: usize = entry.shape.iter().product();
        if (count as u64).checked_mul(width as u64) != Some(end - start) {
            return Err(format!(
                "tensor `{name}`: shape {:?} of {} does not fill its {} bytes",
                entry.shape,
                entry.dtype,
                end - start
            ));
        }
        self.reader
            .seek(SeekFrom::Start(self.data_start + start))
            .map_err(|error| error.to_string())?;
        Ok(Some((entry, width)))
    }

    /// Reads `count` numbers of `dtype` as `f32` into `out`.
    fn read_floats(
        &mut self,
        dtype: &str,
        width: usize,
        raw: &mut [u8],
        out: &mut Vec<f32>,
    ) -> Result<(), String> {
        self.reader
            .read_exact(raw)
            .map_err(|error| format!("the file ends early (truncated?): {error}"))?;
        out.clear();
        // The dtype is matched once, not per number.
        match dtype {
            "F32" => out.extend(
                raw.chunks_exact(4)
                    .map(|bytes| f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])),
            ),
            "F16" => out.extend(
                raw.chunks_exact(2)
                    .map(|bytes| half_to_f32(u16::from_le_bytes([bytes[0], bytes[1]]))),
            ),
            _ => out.extend(raw.chunks_exact(width).map(|bytes| number(dtype, bytes))),
        }
        Ok(())
    }

    /// A two-dimensional tensor of numbers as quantized rows, when the file has it.
    pub(super) fn optional_rows(&mut self, name: &str) -> Result<Option<QuantizedRows>, String> {
        let Some((entry, width)) = self.entry(name)? else {
            return Ok(None);
        };
        check_numbers(name, &entry.dtype)?;
        let [rows, dims] = entry.shape[..] else {
            return Err(format!(
                "tensor `{name}` has shape {:?}, not [tokens, dimensions]",
                entry.shape
            ));
        };
        let mut out = QuantizedRows {
            rows,
            dims,
            values: Vec::with_capacity(rows * dims),
            scales: Vec::with_capacity(rows),
        };
        // Read 1,024 rows at a time (a megabyte at 256 dimensions), each turned into bytes.
        let chunk_rows = 1024.min(rows.max(1));
        let (mut raw, mut numbers) = (Vec::new(), Vec::with_capacity(chunk_rows * dims));
        let mut done = 0;
        while done < rows {
            let count = chunk_rows.min(rows - done);
            raw.resize(count * dims * width, 0);
            self.read_floats(&entry.dtype, width, &mut raw, &mut numbers)?;
            for row in numbers.chunks_exact(dims.max(1)) {
                let largest = row
                    .iter()
                    .fold(0f32, |largest, value| largest.max(value.abs()));
                let scale = if largest > 0.0 && largest.is_finite() {
                    largest / 127.0
                } else {
                    1.0
                };
                let inverse = 1.0 / scale;
                // Rounded half away from zero by a truncating cast (|x| ≤ 127 here), which needs no libm call.
                out.values.extend(row.iter().map(|value| {
                    let scaled = value * inverse;
                    (scaled + 0.5f32.copysign(scaled)) as i8
                }));
                out.scales.push(scale);
            }
            done += count;
        }
        Ok(Some(out))
    }

    /// A tensor of numbers, as `f32`, when the file has it.
    pub(super) fn optional_floats(&mut self, name: &str) -> Result<Option<Vec<f32>>, String> {
        let Some((entry, width)) = self.entry(name)? else {
            return Ok(None);
        };
        check_numbers(name, &entry.dtype)?;
        let count: usize = entry.shape.iter().product();
        let (mut raw, mut out) = (vec![0u8; count * width], Vec::with_capacity(count));
        self.read_floats(&entry.dtype, width, &mut raw, &mut out)?;
        Ok(Some(out))
    }

    /// A tensor of non-negative integers (row numbers), when present.
    pub(super) fn optional_ids(&mut self, name: &str) -> Result<Option<Vec<u32>>, String> {
        let Some((entry, width)) = self.entry(name)? else {
            return Ok(None);
        };
        if !matches!(entry.dtype.as_str(), "I64" | "U64" | "I32" | "U32") {
            return Err(format!(
                "tensor `{name}` has dtype {}, not integers",
                entry.dtype
            ));
        }
        let count: usize = entry.shape.iter().product();
        let mut raw = vec![0u8; count * width];
        self.reader
            .read_exact(&mut raw)
            .map_err(|error| format!("the file ends early (truncated?): {error}"))?;
        let ids: Option<Vec<u32>> = raw
            .chunks_exact(width)
            .map(|bytes| {
                let mut wide = [0u8; 8];
                wide[..width].copy_from_slice(bytes);
                u32::try_from(i64::from_le_bytes(wide)).ok()
            })
            .collect();
        ids.ok_or_else(|| format!("tensor `{name}` holds a negative or too large row number"))
            .map(Some)
    }
}

fn check_numbers(name: &str, dtype: &str) -> Result<(), String> {
    match dtype {
        "F32" | "F16" | "BF16" | "F64" | "I8" => Ok(()),
        other => Err(format!("tensor `{name}` has dtype {other}, not numbers")),
    }
}

/// One little-endian number of `dtype` as `f32`.
fn number(dtype: &str, bytes: &[u8]) -> f32 {
    match dtype {
        "F32" => f32::from_le_bytes(bytes.try_into().expect("4 bytes")),
        "F16" => half_to_f32(u16::from_le_bytes([bytes[0], bytes[1]])),
        "BF16" => f32::from_bits(u32::from(u16::from_le_bytes([bytes[0], bytes[1]])) << 16),
        "F64" => f64::from_le_bytes(bytes.try_into().expect("8 bytes")) as f32,
        _ => f32::from(bytes[0] as i8),
    }
}

/// IEEE 754 half precision to single.
fn half_to_f32(half: u16) -> f32 {
    let sign = u32::from(half >> 15) << 31;
    let exponent = u32::from((half >> 10) & 0x1f);
    let mantissa = u32::from(half & 0x3ff);
    let bits = match (exponent, mantissa) {
        (0, 0) => sign,
        (0, _) => {
            // Subnormal: shift the mantissa up until its leading bit is the implicit one.
            let mut exponent = 127 - 15 + 1;
            let mut mantissa = mantissa;
            while mantissa & 0x400 == 0 {
                mantissa <<= 1;
                exponent -= 1;
            }
            sign | (exponent << 23) | ((mantissa & 0x3ff) << 13)
        }
        (0x1f, _) => sign | 0x7f80_0000 | (mantissa << 13),
        _ => sign | ((exponent + 127 - 15) << 23) | (mantissa << 13),
    };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_precision_values_convert_exactly() {
        assert_eq!(half_to_f32(0x3c00), 1.0);
        assert_eq!(half_to_f32(0xc000), -2.0);
        assert_eq!(half_to_f32(0x3555), 0.333_251_95);
        assert_eq!(half_to_f32(0x0001), 5.960_464_5e-8);
        assert!(half_to_f32(0x7c00).is_infinite());
    }

    #[test]
    fn a_truncated_file_is_named_as_such() {
        let header = br#"{"embeddings":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}"#;
        let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
        bytes.extend_from_slice(header);
        bytes.extend_from_slice(&[0; 8]);
        let mut tensors = Tensors::open(std::io::Cursor::new(bytes.clone())).unwrap();
        let error = tensors.optional_rows("embeddings").err().unwrap();
        assert!(error.contains("truncated"), "{error}");
        assert!(Tensors::open(std::io::Cursor::new(bytes[..4].to_vec())).is_err());
    }

    #[test]
    fn rows_keep_their_values_within_a_step_of_their_scale() {
        let values: [f32; 4] = [0.5, -1.0, 0.25, 0.0];
        let header = br#"{"embeddings":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}"#;
        let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
        bytes.extend_from_slice(header);
        bytes.extend(values.iter().flat_map(|value| value.to_le_bytes()));
        let rows = Tensors::open(std::io::Cursor::new(bytes))
            .unwrap()
            .optional_rows("embeddings")
            .unwrap()
            .unwrap();
        for (at, value) in values.iter().enumerate() {
            let back = f32::from(rows.values[at]) * rows.scales[at / 2];
            assert!(
                (back - value).abs() <= rows.scales[at / 2] / 2.0,
                "{back} {value}"
            );
        }
    }
}
