//! The safetensors format, read by hand: an 8-byte little-endian header length, a JSON header naming each tensor's
//! dtype, shape and byte range, then the data. A reader of the three tensors a Model2Vec model has is 100 lines; the
//! `safetensors` crate would add its own copy of the same.

use serde::Deserialize;
use std::collections::BTreeMap;

/// A tensor's shape and numbers.
pub(super) type Floats = (Vec<usize>, Vec<f32>);

#[derive(Deserialize)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: [usize; 2],
}

/// The tensors of one file.
pub(super) struct Tensors<'a> {
    header: BTreeMap<String, serde_json::Value>,
    data: &'a [u8],
}

impl<'a> Tensors<'a> {
    /// Reads the header; the data is read tensor by tensor.
    pub(super) fn parse(bytes: &'a [u8]) -> Result<Self, String> {
        let length = bytes
            .get(..8)
            .map(|raw| u64::from_le_bytes(raw.try_into().expect("8 bytes")))
            .ok_or("not a safetensors file (shorter than its header length)")?;
        let end = usize::try_from(length)
            .ok()
            .and_then(|length| length.checked_add(8))
            .filter(|&end| end <= bytes.len())
            .ok_or("not a safetensors file (its header is longer than the file)")?;
        let header = serde_json::from_slice(&bytes[8..end])
            .map_err(|error| format!("not a safetensors file (header: {error})"))?;
        Ok(Self {
            header,
            data: &bytes[end..],
        })
    }

    fn entry(&self, name: &str) -> Result<Option<(Entry, &'a [u8])>, String> {
        let Some(value) = self.header.get(name) else {
            return Ok(None);
        };
        let entry: Entry = serde_json::from_value(value.clone())
            .map_err(|error| format!("tensor `{name}`: {error}"))?;
        let [start, end] = entry.data_offsets;
        let data = self
            .data
            .get(start..end)
            .filter(|_| start <= end)
            .ok_or_else(|| format!("tensor `{name}` lies outside the file (truncated?)"))?;
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
        if count.checked_mul(width) != Some(data.len()) {
            return Err(format!(
                "tensor `{name}`: shape {:?} of {} does not fill its {} bytes",
                entry.shape,
                entry.dtype,
                data.len()
            ));
        }
        Ok(Some((entry, data)))
    }

    /// A tensor of numbers, as `f32`, with its shape, when the file has it.
    pub(super) fn optional_floats(&self, name: &str) -> Result<Option<Floats>, String> {
        let Some((entry, data)) = self.entry(name)? else {
            return Ok(None);
        };
        let values = match entry.dtype.as_str() {
            "F32" => data
                .chunks_exact(4)
                .map(|raw| f32::from_le_bytes(raw.try_into().expect("4 bytes")))
                .collect(),
            "F16" => data
                .chunks_exact(2)
                .map(|raw| half_to_f32(u16::from_le_bytes([raw[0], raw[1]])))
                .collect(),
            "BF16" => data
                .chunks_exact(2)
                .map(|raw| f32::from_bits(u32::from(u16::from_le_bytes([raw[0], raw[1]])) << 16))
                .collect(),
            "F64" => data
                .chunks_exact(8)
                .map(|raw| f64::from_le_bytes(raw.try_into().expect("8 bytes")) as f32)
                .collect(),
            "I8" => data.iter().map(|&byte| f32::from(byte as i8)).collect(),
            other => return Err(format!("tensor `{name}` has dtype {other}, not numbers")),
        };
        Ok(Some((entry.shape, values)))
    }

    /// A tensor of non-negative integers (row numbers), when present.
    pub(super) fn optional_ids(&self, name: &str) -> Result<Option<Vec<u32>>, String> {
        let Some((entry, data)) = self.entry(name)? else {
            return Ok(None);
        };
        let ids: Option<Vec<u32>> = match entry.dtype.as_str() {
            "I64" | "U64" => data
                .chunks_exact(8)
                .map(|raw| u32::try_from(i64::from_le_bytes(raw.try_into().expect("8 bytes"))).ok())
                .collect(),
            "I32" | "U32" => data
                .chunks_exact(4)
                .map(|raw| u32::try_from(i32::from_le_bytes(raw.try_into().expect("4 bytes"))).ok())
                .collect(),
            other => return Err(format!("tensor `{name}` has dtype {other}, not integers")),
        };
        ids.map(Some)
            .ok_or_else(|| format!("tensor `{name}` holds a negative or too large row number"))
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
        let tensors = Tensors::parse(&bytes).unwrap();
        let error = tensors.optional_floats("embeddings").unwrap_err();
        assert!(error.contains("truncated"), "{error}");
        assert!(Tensors::parse(&bytes[..4]).is_err());
    }
}
