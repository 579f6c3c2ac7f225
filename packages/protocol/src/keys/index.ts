// Public surface of keys/: re-exports only.
export {}
