//! The serde codec for payloads and variable-size return values (one place, so it
//! can be swapped). Currently `postcard`: compact, no schema, builds on stable.

use serde::{de::DeserializeOwned, Serialize};

/// A payload that could not be encoded or decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodecError(pub String);

impl std::fmt::Display for CodecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "gossamer payload codec: {}", self.0)
    }
}
impl std::error::Error for CodecError {}

/// Appends the encoding of `v` to `out`.
pub fn encode_into<V: Serialize + ?Sized>(v: &V, out: &mut Vec<u8>) -> Result<(), CodecError> {
    let buf = std::mem::take(out);
    *out = postcard::to_extend(v, buf).map_err(|e| CodecError(e.to_string()))?;
    Ok(())
}

/// Decodes a value encoded by [`encode_into`].
pub fn decode<V: DeserializeOwned>(bytes: &[u8]) -> Result<V, CodecError> {
    postcard::from_bytes(bytes).map_err(|e| CodecError(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn round_trip() {
        let v = (vec![1u64, 2, 3], String::from("hi"), Some(2.5f32));
        let mut b = vec![9u8];
        encode_into(&v, &mut b).unwrap();
        assert_eq!(b[0], 9);
        let back: (Vec<u64>, String, Option<f32>) = decode(&b[1..]).unwrap();
        assert_eq!(back, v);
        assert!(decode::<(Vec<u64>, String)>(&[200]).is_err());
    }
}
