//! Placeholder; filled by the owning work stream.
