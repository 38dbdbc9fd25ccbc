//! Content hashes: the SHA-256 hex digests promptc records for inputs, sections and outputs.

use sha2::{Digest, Sha256};

/// Whether `h` is a lower-case hex SHA-256 digest, as `sha256_hex` writes them.
pub fn is_sha256(h: &str) -> bool {
    h.len() == 64 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    sha256_hex_parts(&[bytes])
}

/// Lower-case hex SHA-256 of `parts` one after the other, without joining them first.
pub fn sha256_hex_parts(parts: &[&[u8]]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    let digest = h.finalize();
    let mut s = String::with_capacity(64);
    for b in digest {
        s.push(HEX[usize::from(b >> 4)] as char);
        s.push(HEX[usize::from(b & 0xf)] as char);
    }
    s
}
