// Public surface of sdk/: re-exports only.
export {}
