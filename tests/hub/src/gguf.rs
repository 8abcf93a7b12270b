//! A GGUF header from a spec (`*.gguf.header.txt`, written by `fixtures/write.py`): metadata
//! lines `key type value`, a line `---`, then tensor lines `name type dims` (ggml order).
//! Arrays of strings and integers are given by their length and written as placeholders.

/// A GGUF file described by its header: the header's bytes and the whole file's length.
pub struct Gguf {
    /// The file's first bytes, up to the end of the tensor infos.
    pub header: Vec<u8>,
    /// Where the tensor data begins (the header aligned to 32 bytes).
    pub data_start: u64,
    /// The whole file's length.
    pub len: u64,
}

/// ggml's type id, elements per block and bytes per block.
fn ggml(ty: &str) -> (u32, u64, u64) {
    match ty {
        "f32" => (0, 1, 4),
        "f16" => (1, 1, 2),
        "q4_0" => (2, 32, 18),
        "q5_0" => (6, 32, 22),
        "q8_0" => (8, 32, 34),
        "q4_K" => (12, 256, 144),
        "q5_K" => (13, 256, 176),
        "q6_K" => (14, 256, 210),
        "bf16" => (30, 1, 2),
        other => panic!("a ggml type the mock hub does not write: {other}"),
    }
}

fn string(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// Builds the header of `spec`.
pub fn build(spec: &str) -> Gguf {
    let (meta, tensors) = spec.split_once("---\n").expect("a `---` line");
    let meta: Vec<&str> = meta.lines().filter(|l| !l.is_empty()).collect();
    let tensors: Vec<&str> = tensors.lines().filter(|l| !l.is_empty()).collect();
    let mut h = Vec::new();
    h.extend_from_slice(b"GGUF");
    h.extend_from_slice(&3u32.to_le_bytes());
    h.extend_from_slice(&(tensors.len() as u64).to_le_bytes());
    h.extend_from_slice(&(meta.len() as u64).to_le_bytes());
    for line in meta {
        let mut p = line.splitn(3, ' ');
        let (key, ty, value) = (p.next().unwrap(), p.next().unwrap(), p.next().unwrap_or(""));
        string(&mut h, key);
        match ty {
            "str" => {
                h.extend_from_slice(&8u32.to_le_bytes());
                string(&mut h, value);
            }
            "u32" => {
                h.extend_from_slice(&4u32.to_le_bytes());
                h.extend_from_slice(&value.parse::<u32>().unwrap().to_le_bytes());
            }
            "f32" => {
                h.extend_from_slice(&6u32.to_le_bytes());
                h.extend_from_slice(&value.parse::<f32>().unwrap().to_le_bytes());
            }
            "bool" => {
                h.extend_from_slice(&7u32.to_le_bytes());
                h.push(u8::from(value == "true"));
            }
            "str[]" | "i32[]" => {
                let n: u64 = value.parse().unwrap();
                h.extend_from_slice(&9u32.to_le_bytes());
                let strings = ty == "str[]";
                h.extend_from_slice(&(if strings { 8u32 } else { 5u32 }).to_le_bytes());
                h.extend_from_slice(&n.to_le_bytes());
                for i in 0..n {
                    if !strings {
                        h.extend_from_slice(&1i32.to_le_bytes());
                    } else if key.ends_with("merges") {
                        string(&mut h, &format!("m{i:06} n{i:06}"));
                    } else {
                        string(&mut h, &format!("tok{i:06}"));
                    }
                }
            }
            other => panic!("a metadata type the mock hub does not write: {other}"),
        }
    }
    let mut offset = 0u64;
    for line in tensors {
        let mut p = line.split(' ');
        let (name, ty, dims) = (p.next().unwrap(), p.next().unwrap(), p.next().unwrap());
        let dims: Vec<u64> = dims.split(',').map(|d| d.parse().unwrap()).collect();
        let (id, block, bytes) = ggml(ty);
        string(&mut h, name);
        h.extend_from_slice(&(dims.len() as u32).to_le_bytes());
        for d in &dims {
            h.extend_from_slice(&d.to_le_bytes());
        }
        h.extend_from_slice(&id.to_le_bytes());
        h.extend_from_slice(&offset.to_le_bytes());
        let n: u64 = dims.iter().product();
        offset += (n / block * bytes).next_multiple_of(32);
    }
    let data_start = (h.len() as u64).next_multiple_of(32);
    Gguf {
        data_start,
        len: data_start + offset,
        header: h,
    }
}
