//! The bounded reader of GGUF's binary fields: every count and length checked against a cap and
//! against the bytes left before anything is allocated from it.

use alloc::format;
use alloc::string::String;

use super::{MAX_GGUF_ARRAY, MAX_GGUF_STRING};
use crate::error::{ErrorKind, InputError, Result};

/// A metadata value, kept only as far as the header fields need it.
#[derive(Clone, Debug)]
pub(super) enum Scalar {
    Uint(u64),
    Int(i64),
    Str(String),
    /// An array of strings, floats or booleans: its length.
    Array(u64),
    /// An array of integers (per-layer values): its largest element.
    MaxOf(u64),
    Other,
}

impl Scalar {
    pub(super) fn as_u64(&self) -> Option<u64> {
        match *self {
            Scalar::Uint(n) => Some(n),
            Scalar::Int(n) => u64::try_from(n).ok(),
            Scalar::MaxOf(max) => Some(max),
            _ => None,
        }
    }
}

pub(super) struct Reader<'a> {
    pub(super) buf: &'a [u8],
    pub(super) pos: usize,
    /// Smallest number of bytes the rest of the header can take after the current item.
    pub(super) rest_min: u64,
}

impl<'a> Reader<'a> {
    /// `n` bytes, or the "read more" error when the prefix ends first.
    pub(super) fn take(&mut self, n: u64) -> Result<&'a [u8]> {
        let have = (self.buf.len() - self.pos) as u64;
        if n > have {
            let need = (self.pos as u64)
                .saturating_add(n)
                .saturating_add(self.rest_min);
            return Err(InputError::new(
                ErrorKind::Header,
                "gguf",
                format!(
                    "the header continues past the {} bytes given",
                    self.buf.len()
                ),
                format!(
                    "the first {need} bytes of the file or more (read at least {} more bytes)",
                    need - self.buf.len() as u64
                ),
            ));
        }
        let s = &self.buf[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }

    pub(super) fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(super) fn u64(&mut self) -> Result<u64> {
        let b = self.take(8)?;
        let mut le = [0u8; 8];
        le.copy_from_slice(b);
        Ok(u64::from_le_bytes(le))
    }

    pub(super) fn string(&mut self) -> Result<String> {
        let len = self.u64()?;
        if len > MAX_GGUF_STRING {
            return Err(InputError::new(
                ErrorKind::Header,
                "gguf",
                format!("a string claims {len} bytes"),
                format!("strings of at most {MAX_GGUF_STRING} bytes"),
            ));
        }
        let b = self.take(len)?;
        Ok(String::from_utf8_lossy(b).into_owned())
    }

    /// One value of GGUF type `ty` (`gguf_metadata_value_type`).
    pub(super) fn value(&mut self, ty: u32, depth: u32) -> Result<Scalar> {
        Ok(match ty {
            0 => Scalar::Uint(self.take(1)?[0] as u64),
            1 => Scalar::Int(self.take(1)?[0] as i8 as i64),
            2 => {
                let b = self.take(2)?;
                Scalar::Uint(u16::from_le_bytes([b[0], b[1]]) as u64)
            }
            3 => {
                let b = self.take(2)?;
                Scalar::Int(i16::from_le_bytes([b[0], b[1]]) as i64)
            }
            4 => Scalar::Uint(self.u32()? as u64),
            5 => Scalar::Int(self.u32()? as i32 as i64),
            6 => {
                self.take(4)?;
                Scalar::Other
            }
            7 => {
                self.take(1)?;
                Scalar::Other
            }
            8 => Scalar::Str(self.string()?),
            9 => {
                if depth >= 2 {
                    return Err(InputError::new(
                        ErrorKind::Header,
                        "gguf",
                        "arrays are nested more than 2 deep",
                        "a GGUF file (metadata arrays hold scalars or strings)",
                    ));
                }
                let item = self.u32()?;
                let count = self.u64()?;
                if count > MAX_GGUF_ARRAY {
                    return Err(InputError::new(
                        ErrorKind::Header,
                        "gguf",
                        format!("an array claims {count} entries"),
                        format!("arrays of at most {MAX_GGUF_ARRAY} entries"),
                    ));
                }
                match fixed_size(item) {
                    Some(size) if !matches!(item, 0..=5 | 10 | 11) => {
                        self.take(count * size)?;
                        Scalar::Array(count)
                    }
                    Some(_) => {
                        // Integer arrays (per-layer head counts, FFN widths): keep the largest.
                        let mut max = 0u64;
                        for _ in 0..count {
                            if let Some(v) = self.value(item, depth + 1)?.as_u64() {
                                max = max.max(v);
                            }
                        }
                        Scalar::MaxOf(max)
                    }
                    None if matches!(item, 8 | 9) => {
                        for _ in 0..count {
                            self.value(item, depth + 1)?;
                        }
                        Scalar::Array(count)
                    }
                    None => return Err(unknown_type(item)),
                }
            }
            10 => Scalar::Uint(self.u64()?),
            11 => Scalar::Int(self.u64()? as i64),
            12 => {
                self.take(8)?;
                Scalar::Other
            }
            other => return Err(unknown_type(other)),
        })
    }
}

pub(super) fn unknown_type(ty: u32) -> InputError {
    InputError::new(
        ErrorKind::Header,
        "gguf",
        format!("metadata value type {ty} is not a GGUF type"),
        "value types 0 to 12 (GGUF v2/v3)",
    )
}

/// Bytes of one fixed-size GGUF value type; `None` for strings and arrays.
pub(super) const fn fixed_size(ty: u32) -> Option<u64> {
    Some(match ty {
        0 | 1 | 7 => 1,
        2 | 3 => 2,
        4..=6 => 4,
        10..=12 => 8,
        _ => return None,
    })
}
