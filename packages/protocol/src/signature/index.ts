// Public surface of signature/: re-exports only.
export {}
