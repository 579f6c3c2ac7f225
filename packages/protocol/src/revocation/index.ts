// Public surface of revocation/: re-exports only.
export {}
