// Public surface of merkle/: re-exports only.
export {}
